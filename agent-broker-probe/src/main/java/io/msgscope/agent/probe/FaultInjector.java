package io.msgscope.agent.probe;

import io.msgscope.core.fault.FaultAction;
import io.msgscope.core.fault.FaultPlan;
import io.msgscope.core.fault.FaultStep;
import io.msgscope.core.fault.FaultTargets;
import io.msgscope.core.fault.Signals;
import io.msgscope.proto.FaultApplied;
import io.msgscope.proto.RunSpec;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Applies a run's faults on the broker's host (issue 32): only to the targets, and with the means, this agent was
 * started with ({@code --fault-target}); a spec naming anything else is refused at set-up. Each fault waits on its own
 * thread for {@code origin + at} (parked, then spinning the last 200 µs), is stamped just before its signal (libc
 * {@code kill}, no fork), command or network change ({@link NetFault}: {@code ip}/{@code tc} in the target's
 * namespace), and once more when that returned; each is logged on the agent's output with its stamp on the run's clock.
 */
final class FaultInjector {
    private static final long SPIN_NS = 200_000;
    private static final long RESTART_WAIT_S = 60;

    private final FaultTargets targets;
    private final FaultPlan plan;
    private final List<FaultApplied> applied = new ArrayList<>();
    private volatile Thread thread;
    /** Processes this injector stopped and has not continued: continued when it stops, so none stays stalled. */
    private final java.util.Set<Long> paused = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Targets partitioned or degraded and not healed: healed when it stops, so no namespace stays cut off. */
    private final java.util.Set<String> cut = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Targets whose links carry the rate limit degrade put: heal removes it. */
    private final java.util.Set<String> degraded = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private FaultInjector(FaultTargets targets, FaultPlan plan) {
        this.targets = targets;
        this.plan = plan;
    }

    /** The spec's faults checked against the targets given; null when the spec has none. */
    static FaultInjector of(FaultTargets targets, RunSpec spec) {
        if (spec.getFaultsCount() == 0) {
            return null;
        }
        List<FaultStep> steps = new ArrayList<>();
        for (io.msgscope.proto.FaultStep s : spec.getFaultsList()) {
            FaultAction a = FaultAction.of(s.getAction());
            if (a == null) {
                throw new io.msgscope.core.SpecException("--faults", "unknown action '" + s.getAction() + "'; refused");
            }
            // the rate goes to tc: checked here too, whatever the coordinator sent
            steps.add(new FaultStep(s.getAtNs(), a, s.getTarget(), FaultPlan.arg("--faults", a, s.getTarget(), s.getArg())));
        }
        FaultPlan plan = new FaultPlan(steps);
        targets.check("--faults", plan);
        Signals.load(); // now, not between the first fault's stamp and its signal
        return new FaultInjector(targets, plan);
    }

    /** Starts the schedule from {@code originNs}; once. */
    synchronized void start(long originNs) {
        if (thread != null) {
            return;
        }
        Thread t = new Thread(() -> run(originNs), "msgscope-faults");
        t.setDaemon(true);
        thread = t;
        t.start();
    }

    private void run(long originNs) {
        for (FaultStep s : plan.steps()) {
            if (Thread.currentThread().isInterrupted()) {
                return; // the run ended (during a restart command): a fault overdue by then is not applied after it
            }
            long due = originNs + s.atNs();
            // everything but the action itself before its time (the first fault's record and target took 10-25 ms
            // to make, which it came late by)
            FaultApplied.Builder record = record(s, originNs);
            FaultTargets.Target target = targets.get(s.target());
            long pid = signalled(s, target);
            long now;
            while ((now = System.nanoTime()) < due - SPIN_NS) {
                LockSupport.parkNanos(due - SPIN_NS - now);
                if (Thread.interrupted()) {
                    return;
                }
            }
            while (System.nanoTime() < due) {
                Thread.onSpinWait();
            }
            FaultApplied a = apply(s, record, target, pid);
            synchronized (this) {
                applied.add(a);
            }
            System.out.println("fault " + s.label() + ": " + (!a.getError().isEmpty() ? "FAILED: " + a.getError()
                    : a.getDoneNs() == 0 ? "applied (the command still ran when the run ended)" : "applied") + " at " + String.format(java.util.Locale.ROOT, "%.3f", (a.getAppliedNs() - originNs)
                    / 1e6) + " ms on the run's clock (" + String.format(java.util.Locale.ROOT, "%+.3f",
                    (a.getAppliedNs() - due) / 1e6) + " ms from plan)" + (a.getPid() > 0 ? ", pid " + a.getPid() : ""));
            System.out.flush();
        }
    }

    private static FaultApplied.Builder record(FaultStep s, long originNs) {
        return FaultApplied.newBuilder().setStep(io.msgscope.proto.FaultStep.newBuilder()
                .setAtNs(s.atNs()).setAction(s.action().label()).setTarget(s.target()).setArg(s.arg())).setOriginNs(originNs);
    }

    /** The process a signal fault is sent to, read from its pid file now; 0 for the other actions or when unreadable. */
    private static long signalled(FaultStep s, FaultTargets.Target t) {
        if (s.action().network() || s.action() == FaultAction.RESTART) {
            return 0;
        }
        try {
            return t.currentPid();
        } catch (Exception e) {
            return 0; // read again when it is due, where the failure is recorded
        }
    }

    private FaultApplied apply(FaultStep s, FaultApplied.Builder b, FaultTargets.Target t, long known) {
        boolean stillRunning = false;
        try {
            if (s.action().network()) {
                b.setAppliedNs(System.nanoTime());
                NetFault.apply(t, s.action(), s.arg(), degraded.contains(t.name()));
                if (s.action() == FaultAction.HEAL) {
                    cut.remove(t.name());
                    degraded.remove(t.name());
                } else {
                    cut.add(t.name());
                    if (s.action() == FaultAction.DEGRADE) {
                        degraded.add(t.name());
                    }
                }
            } else if (s.action() == FaultAction.RESTART) {
                ProcessBuilder pb = new ProcessBuilder("/bin/sh", "-c", t.restartCommand()).inheritIO();
                b.setAppliedNs(System.nanoTime());
                Process p = pb.start();
                try {
                    if (!p.waitFor(RESTART_WAIT_S, TimeUnit.SECONDS)) {
                        b.setError("the restart command did not return within " + RESTART_WAIT_S + " s");
                    } else if (p.exitValue() != 0) {
                        b.setError("the restart command exited with code " + p.exitValue());
                    }
                } catch (InterruptedException e) {
                    // the run ended while the command ran (a broker slow to boot): it was applied, and runs on
                    stillRunning = true;
                    Thread.currentThread().interrupt(); // no later fault is waited for
                }
            } else {
                long pid = known > 0 ? known : t.currentPid();
                b.setPid(pid);
                b.setAppliedNs(System.nanoTime());
                Signals.send(pid, Signals.of(s.action()));
                if (s.action() == FaultAction.PAUSE) {
                    paused.add(pid);
                } else {
                    paused.remove(pid);
                }
            }
        } catch (Exception e) {
            if (b.getAppliedNs() == 0) {
                b.setAppliedNs(System.nanoTime());
            }
            b.setError(e.getMessage() == null ? e.toString() : e.getMessage());
        }
        return b.setDoneNs(stillRunning ? 0 : System.nanoTime()).build();
    }

    /** What was applied so far, in order. */
    synchronized List<FaultApplied> applied() {
        return List.copyOf(applied);
    }

    /** Stops waiting for faults not yet due, and continues any process it left paused (a run cut short). */
    void stop() {
        Thread t = thread;
        if (t != null) {
            t.interrupt();
            try {
                t.join(1_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (Long pid : paused) {
            try {
                Signals.send(pid, Signals.SIGCONT);
                System.out.println("fault clean-up: resumed pid " + pid + ", left paused when the run ended");
            } catch (java.io.IOException e) {
                System.out.println("fault clean-up: could not resume pid " + pid + ": " + e.getMessage());
            }
            paused.remove(pid);
        }
        for (String name : cut) {
            try {
                NetFault.apply(targets.get(name), FaultAction.HEAL, "", degraded.contains(name));
                System.out.println("fault clean-up: healed " + name + ", left cut off when the run ended");
            } catch (java.io.IOException e) {
                System.out.println("fault clean-up: could not heal " + name + ": " + e.getMessage());
            }
            cut.remove(name);
            degraded.remove(name);
        }
    }
}
