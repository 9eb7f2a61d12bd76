package io.msgscope.cli;

import io.msgscope.control.Certificates;
import io.msgscope.coordinator.cli.ExitCodes;
import io.msgscope.core.SpecException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code msgscope certs}: the control plane's private CA and one key and certificate per host
 * (issue 14), for {@code --tls-dir} on agents and coordinators.
 */
@Command(name = "certs", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Certificates for mutual TLS on the control channel (--tls-dir): a private CA for the test "
                               + "network, then a key and certificate per host, agents and coordinators alike.",
                       "  msgscope certs init ca/",
                       "  msgscope certs issue --ca ca/ --host agent1.lab --host 10.0.0.11   (writes ca/agent1.lab/)",
                       "Copy each host's folder to it (key.pem stays 0600) and give it as --tls-dir; keep ca/ca-key.pem "
                               + "off the test network."},
        subcommands = {CertsCommand.Init.class, CertsCommand.Issue.class},
        footer = {"",
                  "Exit codes: 0 written, 2 bad usage (e.g. a CA already in the folder)."})
public final class CertsCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return ExitCodes.USAGE;
    }

    /** {@code certs init DIR}: a new CA (EC P-256), ca.pem and ca-key.pem (0600). */
    @Command(name = "init", mixinStandardHelpOptions = true, sortOptions = false,
            description = "Make a new CA in DIR: ca.pem (give it to every host) and ca-key.pem (0600; keep it safe).",
            footer = {"",
                      "Exit codes: 0 written, 2 bad usage (e.g. DIR already holds a CA)."})
    static final class Init implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Parameters(paramLabel = "DIR", description = "Folder for the CA (created if missing).")
        Path dir;

        @Option(names = "--name", paramLabel = "TEXT", defaultValue = "test network",
                description = "What the CA's name says (default: ${DEFAULT-VALUE}).")
        String name;

        @Option(names = "--days", paramLabel = "N", defaultValue = "3650",
                description = "Validity in days (default: ${DEFAULT-VALUE}).")
        int days;

        @Override
        public Integer call() throws IOException {
            checkDays(days);
            Certificates.Issued ca = Certificates.newCa(name, Duration.ofDays(days));
            Certificates.writeCa(dir, ca);
            PrintWriter out = spec.commandLine().getOut();
            out.println("CA written: " + dir.resolve(Certificates.CA_CERT) + " and " + dir.resolve(Certificates.CA_KEY)
                    + " (0600), valid until " + day(ca.certificate().getNotAfter()));
            out.flush();
            return ExitCodes.OK;
        }
    }

    /** {@code certs issue --ca DIR --host NAME...}: a host's key.pem (0600), cert.pem and ca.pem. */
    @Command(name = "issue", mixinStandardHelpOptions = true, sortOptions = false,
            description = "Issue a key and certificate for a host, signed by the CA: OUT gets key.pem (0600), "
                    + "cert.pem and ca.pem, ready to be that host's --tls-dir.",
            footer = {"",
                      "Exit codes: 0 written, 2 bad usage (e.g. no CA in --ca)."})
    static final class Issue implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--ca", required = true, paramLabel = "DIR", description = "The CA's folder (certs init).")
        Path caDir;

        @Option(names = "--host", required = true, paramLabel = "NAME|IP",
                description = "A name or address the host is dialled by, repeatable: each becomes a subject "
                        + "alternative name; a coordinator checks that an agent's certificate names the host given "
                        + "in --agent.")
        List<String> hosts = new ArrayList<>();

        @Option(names = "--out", paramLabel = "DIR",
                description = "Where to write (default: the CA folder's sub-folder named after the first --host).")
        Path out;

        @Option(names = "--days", paramLabel = "N", defaultValue = "825",
                description = "Validity in days (default: ${DEFAULT-VALUE}).")
        int days;

        @Override
        public Integer call() throws IOException {
            checkDays(days);
            for (String h : hosts) {
                if (h.isBlank() || !h.matches("[A-Za-z0-9.:\\-]+") || h.startsWith("-") || h.startsWith(".")) {
                    throw new SpecException("--host", "must be a host name or an IP address, got '" + h + "'");
                }
            }
            Certificates.Issued ca = Certificates.readCa(caDir, "--ca");
            Path dir = out != null ? out : caDir.resolve(hosts.get(0).toLowerCase(Locale.ROOT).replace(':', '_'));
            List<String> names = hosts.stream().map(h -> h.toLowerCase(Locale.ROOT)).distinct().toList();
            Certificates.Issued host = Certificates.issue(ca, names, Duration.ofDays(days));
            if (host.certificate().getNotAfter().after(ca.certificate().getNotAfter())) {
                spec.commandLine().getErr().println("msgscope certs issue: note: the certificate outlives its CA ("
                        + day(ca.certificate().getNotAfter()) + "); it stops working then");
            }
            Certificates.writeHost(dir, ca.certificate(), host);
            PrintWriter o = spec.commandLine().getOut();
            o.println("certificate for " + String.join(", ", names) + " written to " + dir + " (cert.pem, key.pem 0600, "
                    + "ca.pem), valid until " + day(host.certificate().getNotAfter()));
            o.flush();
            return ExitCodes.OK;
        }
    }

    private static void checkDays(int days) {
        if (days < 1 || days > 36_500) {
            throw new SpecException("--days", "must be between 1 and 36500, got " + days);
        }
    }

    private static String day(java.util.Date d) {
        return d.toInstant().toString().substring(0, 10);
    }
}
