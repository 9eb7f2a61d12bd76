package io.msgscope.core;

import oshi.SystemInfo;
import oshi.hardware.CentralProcessor;

import java.net.InetAddress;

/** The environment a result carries (STYLE "Results"): JVM, OS, CPU model and cores (OSHI), host. */
public record EnvironmentInfo(String jvm, String os, String cpuModel, int logicalCores, int physicalCores,
                              String hostname, String bootId) {

    /** This boot's id: two processes with the same id share CLOCK_MONOTONIC (R1); "" when unknown. */
    public static String readBootId() {
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/sys/kernel/random/boot_id")).trim();
        } catch (Exception e) {
            return "";
        }
    }

    public static EnvironmentInfo current() {
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
