package io.msgscope.coordinator.results;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.msgscope.core.EnvironmentInfo;
import io.msgscope.core.Version;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The pieces of JSON every mode's result files share: the one mapper, the tool and environment blocks, the spec hash,
 * and the rule that an undefined number is written as null.
 */
public final class Json {
    /** The mapper every results file is written with: fields in the order they were put, two-space indentation. */
    public static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private Json() {
    }

    /** The tool's name and version, in that order every time (Map.of's order changes from one JVM to the next). */
    public static Map<String, Object> tool() {
        return Envelope.tool(Version.TOOL);
    }

    /** The environment block every mode's summary shares (issue 15). */
    public static Map<String, Object> env(EnvironmentInfo e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("host", e.hostname());
        m.put("jvm", e.jvm());
        m.put("os", e.os());
        m.put("cpu_model", e.cpuModel());
        m.put("logical_cores", e.logicalCores());
        m.put("physical_cores", e.physicalCores());
        return m;
    }

    /** JSON has no NaN: undefined values are null. */
    public static Double finite(double v) {
        return Double.isFinite(v) ? v : null;
    }

    /** SHA-256 (hex) of a spec map's text; each mode hashes its own spec map, so hashes compare within a mode only. */
    public static String specHash(Map<String, Object> spec) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(spec.toString().getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * {@code value} as indented JSON and a final newline: the text of scenario mode's summary.json, batch.json and
     * sweep.json (trace and throughput mode's summary.json has none, see {@link #write}).
     */
    public static String text(Object value) throws IOException {
        return MAPPER.writeValueAsString(value) + "\n";
    }

    /** Writes {@code value} as indented JSON, without a final newline (summary.json's form since its first version). */
    public static void write(Path file, Object value) throws IOException {
        MAPPER.writeValue(file.toFile(), value);
    }
}
