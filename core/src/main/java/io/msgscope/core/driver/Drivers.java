package io.msgscope.core.driver;

import io.msgscope.core.SpecException;

import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;

/** The drivers found on the class path (ServiceLoader), by name. */
public final class Drivers {
    private final Map<String, Driver> byName = new TreeMap<>();

    private Drivers() {
    }

    public static Drivers load() {
        Drivers d = new Drivers();
        for (Driver driver : ServiceLoader.load(Driver.class)) {
            d.byName.put(driver.name(), driver);
        }
        return d;
    }

    public Driver get(String name) {
        Driver d = byName.get(name);
        if (d == null) {
            throw new SpecException("--driver", "unknown driver '" + name + "'; available: "
                    + String.join(", ", byName.keySet()));
        }
        return d;
    }

    public java.util.Set<String> names() {
        return byName.keySet();
    }
}
