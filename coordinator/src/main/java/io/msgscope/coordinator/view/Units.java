package io.msgscope.coordinator.view;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Locale;

/** How the report, compare and the sweep tables write a duration and a size for people. */
public final class Units {
    private Units() {
    }

    public static String time(JsonNode ns) {
        return ns.isNumber() ? time(ns.asDouble()) : "–";
    }

    /** A duration given in ns, in s, ms or µs with three significant digits. */
    public static String time(double v) {
        if (Double.isNaN(v)) {
            return "–";
        }
        if (v >= 1e9) {
            return String.format(Locale.ROOT, "%.3g s", v / 1e9);
        }
        if (v >= 1e6) {
            return String.format(Locale.ROOT, "%.3g ms", v / 1e6);
        }
        return String.format(Locale.ROOT, "%.3g µs", v / 1e3);
    }

    public static String bytes(double b) {
        if (Double.isNaN(b)) {
            return "–";
        }
        String[] u = {"B", "KiB", "MiB", "GiB"};
        int i = 0;
        while (b >= 1024 && i < u.length - 1) {
            b /= 1024;
            i++;
        }
        return String.format(Locale.ROOT, "%.1f %s", b, u[i]);
    }
}
