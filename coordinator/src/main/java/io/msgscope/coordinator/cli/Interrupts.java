package io.msgscope.coordinator.cli;

import sun.misc.Signal;
import sun.misc.SignalHandler;

import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Ctrl-C (SIGINT) and SIGTERM while a run measures (issue 29): the first stops the run the way it ends normally
 * — the agents are told to stop, what was measured is uploaded, analysed and written with status
 * {@code interrupted}, exit {@link ExitCodes#INTERRUPTED} — and the second aborts at once (the agents, which
 * watch this process, follow it). Installed for the run, the JVM's own handlers put back after it. A point of a
 * {@code sweep} or {@code batch} ({@link ParentWatch}) ignores SIGINT — the terminal sends it to the whole process
 * group — and takes its parent's SIGTERM instead ({@link ChildRun#interrupt}), so one Ctrl-C is one signal to it.
 */
final class Interrupts implements AutoCloseable {
    private static final List<String> SIGNALS = List.of("INT", "TERM");

    private final Map<Signal, SignalHandler> previous = new java.util.HashMap<>();
    private final AtomicInteger count = new AtomicInteger();

    private Interrupts() {
    }

    /**
     * Installs the handlers: {@code first} gets the first signal's name ({@code SIGINT}, {@code SIGTERM}) on a
     * thread of its own; {@code log} is told what happens.
     */
    static Interrupts install(Consumer<String> first, PrintStream log) {
        Interrupts in = new Interrupts();
        // a sweep's or batch's point leaves the terminal's Ctrl-C to its parent, which passes it on as SIGTERM
        for (String name : ParentWatch.isChild() ? List.of("TERM") : SIGNALS) {
            Signal s = new Signal(name);
            in.previous.put(s, Signal.handle(s, sig -> in.on("SIG" + sig.getName(), first, log)));
        }
        return in;
    }

    private void on(String signal, Consumer<String> first, PrintStream log) {
        if (count.incrementAndGet() > 1) {
            log.println("msgscope: " + signal + " again: aborted; the results folder holds what was written so far");
            log.flush();
            Runtime.getRuntime().halt(ExitCodes.INTERRUPTED);
        }
        log.println("msgscope: " + signal + ": stopping the run and keeping what was measured (again to abort at once)");
        log.flush();
        Thread t = new Thread(() -> first.accept(signal), "msgscope-interrupt");
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void close() {
        previous.forEach(Signal::handle);
    }
}
