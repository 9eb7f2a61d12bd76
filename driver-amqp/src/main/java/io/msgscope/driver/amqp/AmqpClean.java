package io.msgscope.driver.amqp;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.DriverSpec;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code msgscope clean --driver amqp} (issue 16, issue 32 item 3): the named queues a run left when its broker or its
 * agents were killed: a subscriber's own ({@code msgscope-TYPE-RANDOM}, {@link QueueTypes#PREFIX}: quorum and stream
 * queues, and every queue with {@code --opt reconnect=true}) and round-robin groups' ({@code msgscopeHEX}), all named
 * {@code msgscope…}. AMQP 0-9-1 cannot list queues, so they are found through RabbitMQ's management HTTP API (the
 * {@code rabbitmq_management} plugin): {@code GET /api/queues/VHOST?columns=name}, then {@code DELETE} of each. Its
 * address is {@code --opt management=http://HOST:PORT}, by default port {@value #DEFAULT_PORT} on {@code --uri}'s
 * host; the user and password are {@code --uri}'s. A broker without the plugin cannot be cleaned this way: the line
 * says so, and that the queues expire by themselves once unused ({@link QueueTypes#QUORUM_EXPIRES_MS}; not streams).
 */
final class AmqpClean {
    static final int DEFAULT_PORT = 15672;
    /** Every queue msgscope names starts with it (its own queues {@code msgscope-}, groups {@code msgscope} + hex). */
    static final String NAMES = "msgscope";
    private static final Pattern NAME = Pattern.compile("\"name\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private AmqpClean() {
    }

    static List<String> clean(DriverSpec spec, boolean dryRun) throws IOException {
        AmqpOptions o = AmqpOptions.of(spec);
        com.rabbitmq.client.ConnectionFactory f = AmqpConnections.factory(spec, o);
        String base = managementBase(spec.options().get(AmqpOptions.MANAGEMENT), f.getHost());
        String vhost = URLEncoder.encode(f.getVirtualHost(), StandardCharsets.UTF_8);
        String auth = "Basic " + Base64.getEncoder().encodeToString((f.getUsername() + ":" + f.getPassword())
                .getBytes(StandardCharsets.UTF_8));
        HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT)
                .version(HttpClient.Version.HTTP_1_1).build(); // the plugin closes the connection on an h2c upgrade
        String listed = call(http, HttpRequest.newBuilder(URI.create(base + "/api/queues/" + vhost + "?columns=name"))
                .header("Authorization", auth).GET(), base);
        List<String> out = new ArrayList<>();
        for (String q : ours(listed)) {
            if (!dryRun) {
                call(http, HttpRequest.newBuilder(URI.create(base + "/api/queues/" + vhost + "/"
                        + URLEncoder.encode(q, StandardCharsets.UTF_8).replace("+", "%20")))
                        .header("Authorization", auth).DELETE(), base);
            }
            out.add((dryRun ? "would delete" : "deleted") + " queue " + q + " at " + AmqpConnections.address(f));
        }
        return out;
    }

    /** The management API's base URL: {@code --opt management}, else {@code http://HOST:15672}. */
    static String managementBase(String given, String host) {
        if (given == null || given.isBlank()) {
            return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + DEFAULT_PORT;
        }
        String g = given.trim();
        if (!g.matches("https?://[^/\\s]+/?")) {
            throw new SpecException("--opt " + AmqpOptions.MANAGEMENT, "must be the management API's http://HOST:PORT "
                    + "(e.g. http://127.0.0.1:15672), got '" + io.msgscope.core.Secrets.uri(g) + "'");
        }
        return g.endsWith("/") ? g.substring(0, g.length() - 1) : g;
    }

    /** The names in a {@code GET /api/queues} answer that msgscope gave, in the order listed. */
    static List<String> ours(String json) {
        List<String> names = new ArrayList<>();
        Matcher m = NAME.matcher(json);
        while (m.find()) {
            String n = m.group(1).replace("\\\"", "\"").replace("\\\\", "\\");
            if (n.startsWith(NAMES)) {
                names.add(n);
            }
        }
        return names;
    }

    private static String call(HttpClient http, HttpRequest.Builder request, String base) throws IOException {
        HttpResponse<String> r;
        try {
            r = http.send(request.timeout(TIMEOUT).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IOException("amqp: cannot reach RabbitMQ's management API at " + base + " ("
                    + AmqpConnections.describe(e) + "): AMQP 0-9-1 cannot list queues, so clean needs the "
                    + "rabbitmq_management plugin (or --opt " + AmqpOptions.MANAGEMENT + "=http://HOST:PORT); "
                    + "msgscope's named queues otherwise expire once unused for "
                    + QueueTypes.QUORUM_EXPIRES_MS / 60_000 + " minutes (streams do not)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("amqp: interrupted while asking " + base, e);
        }
        if (r.statusCode() / 100 != 2) {
            throw new IOException("amqp: RabbitMQ's management API at " + base + " answered " + r.statusCode()
                    + " to " + r.request().method() + " " + r.request().uri().getPath() + ": "
                    + r.body().lines().findFirst().orElse(""));
        }
        return r.body();
    }
}
