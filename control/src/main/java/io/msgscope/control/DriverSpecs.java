package io.msgscope.control;

import io.msgscope.core.driver.DefaultDrivers;
import io.msgscope.core.driver.Driver;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Drivers;
import io.msgscope.proto.RunSpec;

/** The driver-facing part of a run spec, the same for sender and receiver. */
public final class DriverSpecs {
    private DriverSpecs() {
    }

    public static DriverSpec of(RunSpec spec) {
        return new DriverSpec(spec.getConnectHost(), spec.getConnectPort(), spec.getUri(), spec.getSize(),
                spec.getSocketBuffer(), spec.getDriverOptionsMap(), spec.getDestination());
    }

    /** The driver a spec names; tcp when it names none. */
    public static Driver driverOf(Drivers drivers, RunSpec spec) {
        return drivers.get(spec.getDriver().isEmpty() ? DefaultDrivers.MEASURING : spec.getDriver());
    }
}
