package io.msgscope.coordinator.cli;

import io.msgscope.core.driver.DefaultDrivers;
import io.msgscope.core.driver.Driver;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Drivers;
import picocli.CommandLine.Option;

import java.util.Map;

/** The driver options every measuring command shares (M10): which system, where, and its own options. */
public final class DriverOptions {
    @Option(names = "--driver", paramLabel = "NAME", defaultValue = DefaultDrivers.MEASURING,
            description = "The messaging system (M10): tcp (raw TCP through the built-in relay, or straight to the "
                    + "receiver with --opt via=direct; no broker), amqp (AMQP 0-9-1), amqp10 (AMQP 1.0), mqtt, nats, zmq, kafka, redis (Redis Streams or pub/sub), rabbitmq-stream "
                    + "(RabbitMQ Streams), stomp (STOMP 1.2) or artemis (ActiveMQ Artemis core) (default: ${DEFAULT-VALUE}).")
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

    /** The named driver, with its options (keys and values) and URI checked by the driver before anything runs. */
    Driver resolve(int size) {
        return resolve(size, options());
    }

    /** As {@link #resolve(int)} with other options, e.g. one value of a sweep's {@code --opt-values}. */
    Driver resolve(int size, Map<String, String> opts) {
        Driver d = Drivers.load().get(driver);
        d.checkOptions(new DriverSpec("", 0, uri(), size, 0, opts, ""));
        d.usesRelay(opts); // a driver reads its routing options here and refuses bad values up front
        return d;
    }

    /** The options as {@code run}/{@code throughput} arguments: {@code --driver}, {@code --uri}, {@code --opt}s. */
    java.util.List<String> asArguments() {
        java.util.List<String> a = new java.util.ArrayList<>(java.util.List.of("--driver", driver));
        if (uri != null) {
            a.add("--uri");
            a.add(uri);
        }
        for (Map.Entry<String, String> e : new java.util.TreeMap<>(options()).entrySet()) {
            a.add("--opt");
            a.add(e.getKey() + "=" + e.getValue());
        }
        return a;
    }
}
