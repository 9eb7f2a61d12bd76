package io.msgscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/summary.schema.json (issue 18), the published shape of summary.json, held to what the tool writes: every
 * end-to-end test that reads a summary.json checks it against the schema first.
 */
final class SummarySchema {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static JsonSchema schema;

    private SummarySchema() {
    }

    /** The schema, from the repository's docs/ (the tests run in dist/, so one level up). */
    static synchronized JsonSchema schema() {
        if (schema == null) {
            Path p = Path.of("..", "docs", "summary.schema.json");
            try {
                JsonNode node = JSON.readTree(Files.readString(p));
                schema = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(node);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + p.toAbsolutePath(), e);
            }
        }
        return schema;
    }

    /** The problems of one summary.json against the schema, one line each; empty when it conforms. */
    static Set<String> problems(JsonNode summary) {
        Set<ValidationMessage> m = schema().validate(summary);
        return m.stream().map(ValidationMessage::toString).collect(Collectors.toCollection(java.util.TreeSet::new));
    }

    /** Reads {@code summaryJson}, asserts it conforms, and returns it. */
    static JsonNode assertValid(Path summaryJson) throws IOException {
        JsonNode s = JSON.readTree(summaryJson.toFile());
        Set<String> p = problems(s);
        assertTrue(p.isEmpty(), () -> summaryJson + " does not conform to docs/summary.schema.json: " + p);
        return s;
    }
}
