package io.msgscope.core;

import oshi.SystemInfo;
import oshi.hardware.CentralProcessor;

import java.net.InetAddress;

/** The environment a result carries (STYLE "Results"): JVM, OS, CPU model and cores (OSHI), host. */
public record EnvironmentInfo(String jvm, String os, String cpuModel, int logicalCores, int physicalCores,
                              String hostname, String bootId) {

    /**
     * This boot's id: two processes with the same id share CLOCK_MONOTONIC (R1); "" when unknown. The
     * environment variable {@code MSGSCOPE_BOOT_ID} replaces it, so that agents in network namespaces of
     * one machine (the network lab) can play separate boxes and exercise the cross-host clock offsets. An agent
     * whose epoch clock the test hook shifts (issue 33) adds {@link io.msgscope.core.clock.ClockShift#BOOT_ID_SUFFIX}:
     * it is then another box, whatever it shares.
     */
    public static String readBootId() {
        String id = kernelBootId();
        return System.getenv(io.msgscope.core.clock.ClockShift.ENV) == null ? id
                : id + io.msgscope.core.clock.ClockShift.BOOT_ID_SUFFIX;
    }

    private static String kernelBootId() {
        String forced = System.getenv("MSGSCOPE_BOOT_ID");
        if (forced != null && !forced.isBlank()) {
            return forced.trim();
        }
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/sys/kernel/random/boot_id")).trim();
        } catch (Exception e) {
            return "";
        }
    }

    private static volatile EnvironmentInfo cached;

    /**
     * This process's environment. The OSHI hardware lookup takes up to seconds on a loaded box, so it is
     * done once and cached (the hardware does not change under a running JVM); agents call it before
     * they listen so that a handshake never waits on it.
     */
    public static EnvironmentInfo current() {
        EnvironmentInfo e = cached;
        if (e == null) {
            e = lookUp();
            cached = e;
        }
        return e;
    }

    private static EnvironmentInfo lookUp() {
        String jvm = System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version");
        String os = System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch");
        String cpu = "unknown";
        int logical = Runtime.getRuntime().availableProcessors();
        int physical = logical;
        try {
            CentralProcessor p = new SystemInfo().getHardware().getProcessor();
            cpu = p.getProcessorIdentifier().getName().trim();
            logical = p.getLogicalProcessorCount();
            physical = p.getPhysicalProcessorCount();
        } catch (Throwable t) {
            // OSHI unavailable: keep the JVM's view
        }
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            host = "unknown";
        }
        return new EnvironmentInfo(jvm, os, cpu, logical, physical, host, readBootId());
    }
}
