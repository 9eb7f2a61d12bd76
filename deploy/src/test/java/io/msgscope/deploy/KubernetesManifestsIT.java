package io.msgscope.deploy;

import io.msgscope.core.test.Ci;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The Kubernetes manifests (deploy/kubernetes, issue 13) without a cluster: each kustomization renders
 * with {@code kubectl kustomize}, every object validates against the Kubernetes OpenAPI schemas
 * (kubernetes-models, installed with npm into target/) with unknown fields refused, and
 * deploy/kubernetes/test/validate.mjs checks what msgscope needs; broken copies of the manifests must
 * fail those checks with the reason. The image's entrypoint script is run with a stand-in java.
 * Without kubectl, node or npm the checks are skipped, under CI=true they fail.
 */
class KubernetesManifestsIT {
    private static final Path DEPLOY = Path.of(System.getProperty("user.dir"));
    private static final Path KUBE = DEPLOY.resolve("kubernetes");
    private static final Path WORK = DEPLOY.resolve("target").resolve("kubernetes-check");
    private static final boolean CI = Ci.on();
    private static final String ALL_ROLES = "publishers,subscribers,sender,receiver,relay";
    private static final String PUBLISHERS = "  name: publishers\n  namespace: msgscope\nspec:\n  podManagementPolicy";
    private static final String PUBLISHERS_SERVICE = "  name: publishers\n  namespace: msgscope\nspec:\n  clusterIP";
    private static final String RECEIVER = "  name: receiver\n  namespace: msgscope\nspec:\n  podManagementPolicy";
    private static final String RELAY = "  name: relay\n  namespace: msgscope\nspec:\n  podManagementPolicy";

    private record Result(int exit, String out, String err) {
        String all() {
            return out + err;
        }
    }

    private static Result run(Path dir, Map<String, String> env, String... cmd) throws Exception {
        Files.createDirectories(WORK);
        Path out = Files.createTempFile(WORK, "out", ".txt");
        Path err = Files.createTempFile(WORK, "err", ".txt");
        try {
            ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile())
                    .redirectOutput(out.toFile()).redirectError(err.toFile());
            pb.environment().putAll(env);
            Process p = pb.start();
            if (!p.waitFor(300, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                fail("timed out after 300 s: " + String.join(" ", cmd));
            }
            return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    private static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }

    /** Skips (or fails, under CI) when a tool is missing. */
    private static void requireTools(String... tools) {
        for (String tool : tools) {
            if (!onPath(tool)) {
                if (CI) {
                    fail(tool + " must be on the PATH under CI: the Kubernetes manifests are checked with kubectl "
                            + "kustomize and node (npm's kubernetes-models)");
                }
                Assumptions.abort(tool + " not found on the PATH: the Kubernetes manifest checks are skipped "
                        + "(they need kubectl, node and npm)");
            }
        }
    }

    private static Path validator;

    /** validate.mjs next to its npm packages in target/, installed once per build. */
    private static synchronized Path validator() throws Exception {
        requireTools("kubectl", "node", "npm");
        Path dir = WORK.resolve("validator");
        Files.createDirectories(dir);
        Files.copy(KUBE.resolve("test/validate.mjs"), dir.resolve("validate.mjs"),
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        if (validator == null) {
            String wanted = Files.readString(KUBE.resolve("test/package.json"));
            Path installed = dir.resolve("package.json");
            boolean current = Files.exists(installed) && Files.readString(installed).equals(wanted)
                    && Files.exists(dir.resolve("node_modules/kubernetes-models/package.json"))
                    && Files.exists(dir.resolve("node_modules/yaml/package.json"));
            if (!current) {
                Files.writeString(installed, wanted);
                Result npm = run(dir, Map.of(), "npm", "install", "--no-audit", "--no-fund", "--no-package-lock",
                        "--loglevel=error");
                if (npm.exit() != 0) {
                    String why = "npm install of kubernetes-models failed (exit " + npm.exit() + "):\n" + npm.all();
                    if (CI) {
                        fail(why);
                    }
                    Assumptions.abort(why);
                }
            }
            validator = dir.resolve("validate.mjs");
        }
        return validator;
    }

    /** {@code kubectl kustomize DIR}, offline. */
    private static String render(Path kustomization) throws Exception {
        requireTools("kubectl");
        Result r = run(kustomization, Map.of(), "kubectl", "kustomize", ".");
        assertEquals(0, r.exit(), () -> "kubectl kustomize " + kustomization + " failed:\n" + r.err());
        assertTrue(r.out().contains("kind:"), () -> "kubectl kustomize rendered nothing:\n" + r.all());
        return r.out();
    }

    private static Result check(String rendered, String roles) throws Exception {
        Path script = validator();
        Path file = Files.createTempFile(WORK, "rendered", ".yaml");
        try {
            Files.writeString(file, rendered);
            return run(WORK, Map.of(), "node", script.toString(), "--roles", roles, file.toString());
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static final Pattern KIND = Pattern.compile("(?m)^kind: (\\S+)$");
    private static final Pattern NAME = Pattern.compile("(?m)^metadata:\\n(?:  .*\\n)*?  name: (\\S+)$");

    /** The rendered objects by kind/name, each as its text. */
    private static Map<String, String> objects(String rendered) {
        Map<String, String> m = new TreeMap<>();
        for (String doc : rendered.split("(?m)^---\\n")) {
            Matcher k = KIND.matcher(doc);
            Matcher n = NAME.matcher(doc);
            assertTrue(k.find() && n.find(), () -> "an object without kind or name:\n" + doc);
            m.put(k.group(1) + "/" + n.group(1), doc);
        }
        return m;
    }

    @Test
    void everyKustomizationRendersAndPassesTheSchemaAndMsgscopeChecks() throws Exception {
        Map<String, String> kustomizations = Map.of(".", ALL_ROLES, "scenario", "publishers,subscribers",
                "trace", "sender,receiver,relay");
        for (Map.Entry<String, String> e : kustomizations.entrySet()) {
            Result r = check(render(KUBE.resolve(e.getKey())), e.getValue());
            assertEquals(0, r.exit(), () -> "deploy/kubernetes/" + e.getKey() + ":\n" + r.all());
            assertTrue(r.out().startsWith("ok: "), r::all);
            assertTrue(r.out().contains("unknown fields refused"), r::all);
        }
    }

    @Test
    void theWholeFleetIsExactlyTheScenarioAndTraceHalves() throws Exception {
        Map<String, String> all = objects(render(KUBE));
        Map<String, String> halves = new TreeMap<>(objects(render(KUBE.resolve("scenario"))));
        Map<String, String> trace = objects(render(KUBE.resolve("trace")));
        for (Map.Entry<String, String> e : trace.entrySet()) {
            String before = halves.putIfAbsent(e.getKey(), e.getValue());
            if (before != null) {
                assertEquals(before, e.getValue(), e.getKey() + " differs between scenario/ and trace/");
            }
        }
        assertEquals(halves.keySet(), all.keySet());
        for (String key : all.keySet()) {
            assertEquals(halves.get(key), all.get(key), key + " differs between deploy/kubernetes and its halves");
        }
        assertEquals(new TreeSet<>(List.of("Deployment/coordinator", "Namespace/msgscope",
                "Service/publishers", "Service/receiver", "Service/relay", "Service/sender", "Service/subscribers",
                "StatefulSet/publishers", "StatefulSet/receiver", "StatefulSet/relay", "StatefulSet/sender",
                "StatefulSet/subscribers")), all.keySet());
    }

    /** name, the object to change (a unique text in it), the text to replace in it, its replacement, the reason expected. */
    static Stream<Arguments> brokenManifests() {
        return Stream.of(
                Arguments.of("a misspelt field", PUBLISHERS, "readinessProbe:", "readinesProbe:",
                        "containers[0].readinesProbe: unknown field"),
                Arguments.of("a port as a string", PUBLISHERS, "containerPort: 7604", "containerPort: \"7604\"",
                        "containerPort must be integer"),
                Arguments.of("a Service with a cluster IP", PUBLISHERS_SERVICE, "clusterIP: None", "clusterIP: 10.96.0.10",
                        "Service/publishers: must be headless (clusterIP: None)"),
                Arguments.of("a limit above the request", PUBLISHERS, "limits:\n            cpu: \"2\"",
                        "limits:\n            cpu: \"3\"", "cpu request 2 differs from its limit 3 (not Guaranteed QoS)"),
                Arguments.of("a fraction of a CPU", PUBLISHERS, "cpu: \"2\"", "cpu: 1500m",
                        "the agent's CPU must be a whole number of cores"),
                Arguments.of("a group-readable secret", PUBLISHERS, "defaultMode: 256", "defaultMode: 288",
                        "mode 440 lets group or others read it"),
                Arguments.of("fsGroup", PUBLISHERS, "runAsGroup: 10001\n        runAsNonRoot",
                        "fsGroup: 10001\n        runAsGroup: 10001\n        runAsNonRoot", "fsGroup makes the secret group-readable"),
                Arguments.of("a copy left 0644", PUBLISHERS, "chmod 0600", "chmod 0644", "must chmod 0600 /run/msgscope/secret"),
                Arguments.of("a capability too many", PUBLISHERS, "- CHOWN", "- SYS_ADMIN", "may add the CHOWN capability only"),
                Arguments.of("--listen on another port", PUBLISHERS, "- 0.0.0.0:7604", "- 0.0.0.0:7000",
                        "--listen must be 0.0.0.0:7604 (the control port), got 0.0.0.0:7000"),
                Arguments.of("a Service aiming elsewhere", PUBLISHERS_SERVICE, "targetPort: control", "targetPort: 8080",
                        "targetPort 8080 is not the control port 7604"),
                Arguments.of("a probe on another port", PUBLISHERS, "port: control\n          timeoutSeconds",
                        "port: 8080\n          timeoutSeconds", "livenessProbe probes port 8080, not the control port 7604"),
                Arguments.of("agents of a role sharing nodes", PUBLISHERS,
                        "app.kubernetes.io/component: publishers\n                app.kubernetes.io/name: msgscope\n            topologyKey",
                        "app.kubernetes.io/component: subscribers\n                app.kubernetes.io/name: msgscope\n            topologyKey",
                        "needs a required podAntiAffinity on kubernetes.io/hostname against its own pods"),
                Arguments.of("a low open-files floor", PUBLISHERS, "value: \"65536\"", "value: \"1024\"",
                        "MSGSCOPE_MIN_NOFILE must be at least 65536"),
                Arguments.of("a receiver away from the sender", RECEIVER, "app.kubernetes.io/component: sender",
                        "app.kubernetes.io/component: relay", "needs a required podAffinity to the sender's node (M1"),
                Arguments.of("a relay beside the receiver", RELAY, "app.kubernetes.io/component: receiver",
                        "app.kubernetes.io/component: publishers", "needs a required podAntiAffinity to the sender's and receiver's nodes"),
                Arguments.of("another namespace", PUBLISHERS, "  namespace: msgscope", "  namespace: default",
                        "StatefulSet/publishers: must be in namespace msgscope, got default"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("brokenManifests")
    void theChecksRefuseABrokenManifest(String name, String object, String text, String replacement, String reason)
            throws Exception {
        String rendered = render(KUBE);
        int at = rendered.indexOf(object);
        assertTrue(at >= 0 && rendered.indexOf(object, at + 1) < 0, "the object is not unique: " + object);
        int end = rendered.indexOf("\n---\n", at);
        end = end < 0 ? rendered.length() : end;
        int start = rendered.lastIndexOf("\n---\n", at);
        start = start < 0 ? 0 : start;
        String doc = rendered.substring(start, end);
        assertTrue(doc.contains(text), () -> "'" + text + "' is not in the object");
        String broken = rendered.substring(0, start) + doc.replace(text, replacement) + rendered.substring(end);
        Result r = check(broken, ALL_ROLES);
        assertEquals(1, r.exit(), () -> name + ": the checks passed\n" + r.all());
        assertTrue(r.out().contains(reason), () -> name + ": expected '" + reason + "' in\n" + r.all());
        assertTrue(r.out().lines().allMatch(l -> l.startsWith("FAIL ")), r::all);
    }

    @Test
    void aRoleThatIsNotRenderedFailsTheChecks() throws Exception {
        Result r = check(render(KUBE.resolve("scenario")), "publishers,subscribers,relay");
        assertEquals(1, r.exit(), r::all);
        assertTrue(r.out().contains("FAIL StatefulSet/relay: missing (role relay was asked for)"), r::all);
    }

    @Test
    void theDocumentedOverlayAddsTheSecretAndTheImage() throws Exception {
        String docs = Files.readString(DEPLOY.getParent().resolve("docs/deploy-kubernetes.md"));
        int marker = docs.indexOf("<!-- overlay: checked by KubernetesManifestsIT -->");
        assertTrue(marker >= 0, "docs/deploy-kubernetes.md lost the overlay marker");
        int open = docs.indexOf("```yaml\n", marker) + "```yaml\n".length();
        String overlay = docs.substring(open, docs.indexOf("```", open));
        String base = "../msgscope/deploy/kubernetes/scenario";
        assertTrue(overlay.contains(base), overlay);

        Path dir = WORK.resolve("overlay");
        Files.createDirectories(dir);
        String relative = dir.relativize(KUBE.resolve("scenario")).toString();
        Files.writeString(dir.resolve("kustomization.yaml"), overlay.replace(base, relative));
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        Path secret = dir.resolve("secret");
        Files.deleteIfExists(secret);
        Files.createFile(secret, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(secret, Base64.getEncoder().encodeToString(key) + "\n");

        String rendered = render(dir);
        Map<String, String> objects = objects(rendered);
        assertTrue(objects.containsKey("Secret/msgscope-agent-secret"), objects::toString);
        assertTrue(objects.get("Secret/msgscope-agent-secret").contains("namespace: msgscope"), rendered);
        assertTrue(rendered.contains("image: registry.example.org/msgscope-agent:" + System.getProperty("msgscope.version")),
                rendered);
        Result r = check(rendered, "publishers,subscribers");
        assertEquals(0, r.exit(), r::all);
    }

    @Test
    void theImageTheManifestsNameIsTheOneTheDockerfileBuilds() throws Exception {
        String version = System.getProperty("msgscope.version");
        assertTrue(version != null && !version.isBlank(), "msgscope.version not set by the build");
        List<String> images = new ArrayList<>();
        List<String> users = new ArrayList<>();
        List<Path> yamls;
        try (Stream<Path> s = Files.walk(KUBE)) {
            yamls = s.filter(p -> p.toString().endsWith(".yaml") && !p.getFileName().toString().equals("kustomization.yaml"))
                    .toList();
        }
        for (Path y : yamls) {
            String text = Files.readString(y);
            Matcher m = Pattern.compile("(?m)^\\s*image: (\\S+)$").matcher(text);
            while (m.find()) {
                images.add(m.group(1));
            }
            Matcher u = Pattern.compile("(?m)^\\s*runAsUser: (\\d+)$").matcher(text);
            while (u.find()) {
                users.add(u.group(1));
            }
        }
        assertTrue(images.size() >= 12, images::toString);
        assertTrue(images.stream().allMatch(("msgscope-agent:" + version)::equals), images::toString);
        assertTrue(users.contains("10001") && users.stream().allMatch(u -> u.equals("10001") || u.equals("0")),
                users::toString);

        String dockerfile = Files.readString(KUBE.resolve("Dockerfile"));
        assertTrue(dockerfile.contains("\nUSER 10001:10001\n"), "the image's user must be the manifests' runAsUser");
        assertTrue(dockerfile.contains("-t REGISTRY/msgscope-agent:" + version), "the build example's tag");
        Path repo = DEPLOY.getParent();
        Matcher copy = Pattern.compile("(?m)^COPY (\\S+) (\\S+)$").matcher(dockerfile);
        int copies = 0;
        while (copy.find()) {
            copies++;
            String source = copy.group(1);
            if (source.equals("dist/target/msgscope.jar")) {
                assertTrue(Files.readString(repo.resolve("dist/pom.xml"))
                        .contains("<outputFile>${project.build.directory}/msgscope.jar</outputFile>"),
                        "the Dockerfile copies the jar dist/pom.xml no longer builds");
            } else {
                assertTrue(Files.isRegularFile(repo.resolve(source)), "the Dockerfile copies a missing " + source);
            }
        }
        assertEquals(2, copies, dockerfile);
    }

    // ---- the image's entrypoint (bash only) ----

    private static Result entrypoint(String floor, String... args) throws Exception {
        Files.createDirectories(WORK);
        Path java = WORK.resolve("fake-java");
        Files.writeString(java, "#!/bin/bash\necho \"soft=$(ulimit -Sn) hard=$(ulimit -Hn) args=$*\"\n");
        java.toFile().setExecutable(true);
        Map<String, String> env = new HashMap<>();
        env.put("MSGSCOPE_JAVA", java.toString());
        env.put("MSGSCOPE_JAR", "/opt/msgscope/msgscope.jar");
        env.put("MSGSCOPE_JAVA_OPTS", "-XX:MaxRAMPercentage=75");
        if (floor != null) {
            env.put("MSGSCOPE_MIN_NOFILE", floor);
        }
        List<String> cmd = new ArrayList<>(List.of("bash", "-c",
                "ulimit -Sn 256 && ulimit -Hn 4096 && exec bash \"$0\" \"$@\"",
                KUBE.resolve("msgscope-container.sh").toString()));
        cmd.addAll(List.of(args));
        return run(WORK, env, cmd.toArray(String[]::new));
    }

    @Test
    void theEntrypointRaisesTheSoftOpenFilesLimitAndKeepsTheFullJitForAgents() throws Exception {
        Result r = entrypoint("1024", "agent", "--role", "publishers");
        assertEquals(0, r.exit(), r::all);
        assertEquals("soft=4096 hard=4096 args=-XX:MaxRAMPercentage=75 -jar /opt/msgscope/msgscope.jar agent --role publishers",
                r.out().strip());
        assertTrue(r.err().startsWith("msgscope: open files limit 4096, cpus allowed "), r::err);
    }

    @Test
    void theEntrypointGivesTheCoordinatorTheQuickJit() throws Exception {
        Result r = entrypoint(null, "scenario", "--driver", "mqtt");
        assertEquals(0, r.exit(), r::all);
        assertEquals("soft=4096 hard=4096 args=-XX:TieredStopAtLevel=1 -XX:MaxRAMPercentage=75 -jar "
                + "/opt/msgscope/msgscope.jar scenario --driver mqtt", r.out().strip());
        assertEquals("", r.err());
    }

    @Test
    void theEntrypointStopsWhenTheRuntimeGivesTooFewFiles() throws Exception {
        Result r = entrypoint("65536", "agent", "--role", "subscribers");
        assertEquals(2, r.exit(), r::all);
        assertEquals("", r.out(), "java must not start");
        assertEquals("msgscope: the open-files hard limit is 4096, below MSGSCOPE_MIN_NOFILE=65536; raise the "
                + "container runtime's nofile limit on this node (docs/deploy-kubernetes.md, 'File descriptors')",
                r.err().strip());
    }

    @Test
    void theEntrypointRefusesAFloorThatIsNotANumber() throws Exception {
        Result r = entrypoint("lots", "agent", "--role", "relay");
        assertEquals(2, r.exit(), r::all);
        assertEquals("", r.out());
        assertEquals("msgscope: MSGSCOPE_MIN_NOFILE must be a whole number of files, got 'lots'", r.err().strip());
    }

    @Test
    void theEntrypointParses() throws Exception {
        Result r = run(KUBE, Map.of(), "bash", "-n", "msgscope-container.sh");
        assertEquals(0, r.exit(), r::all);
    }
}
