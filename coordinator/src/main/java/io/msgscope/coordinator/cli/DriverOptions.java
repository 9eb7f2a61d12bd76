package io.msgscope.coordinator.cli;

import io.msgscope.core.driver.Driver;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Drivers;
import picocli.CommandLine.Option;

import java.util.Map;

/** The driver options every measuring command shares (M10): which system, where, and its own options. */
public final class DriverOptions {
    @Option(names = "--driver", paramLabel = "NAME", defaultValue = "tcp",
            description = "The messaging system (M10): tcp (raw TCP through the built-in relay; no broker), amqp, "
                    + "mqtt, nats or zmq (default: ${DEFAULT-VALUE}).")
    String driver;

    @Option(names = "--uri", paramLabel = "URI",
            description = "Broker address for broker drivers, e.g. amqp://guest:guest@127.0.0.1:5672/%%2f "
                    + "(default: none; the driver's own default).")
    String uri;

    @Option(names = "--opt", paramLabel = "KEY=VALUE",
            description = "A driver option, repeatable; each driver documents its keys (default: none).")
    Map<String, String> options;

    String uri() {
        return uri == null ? "" : uri;
    }

    Map<String, String> options() {
        return options == null ? Map.of() : options;
    }

    /** The named driver, with its options checked against the keys it knows (and their values, where it can). */
    Driver resolve(int size) {
        Driver d = Drivers.load().get(driver);
        new DriverSpec("", 0, uri(), size, 0, options(), "").requireKnownOptions(d.name(), d.optionKeys());
        d.usesRelay(options()); // a driver reads its routing options here and refuses bad values up front
        return d;
    }
}
