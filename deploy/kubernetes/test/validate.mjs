// Checks rendered msgscope manifests (the output of `kubectl kustomize deploy/kubernetes...`):
//  1. every object against the Kubernetes OpenAPI schemas, through kubernetes-models' validators,
//     plus unknown fields (which those validators let through) from the models' type declarations;
//  2. what msgscope needs: the agent roles asked for, each a StatefulSet behind a headless Service,
//     one control port agreeing between --listen, the container, the Service and the probes,
//     Guaranteed QoS with whole CPUs, per-role anti-affinity, the shared secret copied 0600 from the
//     Secret, and the open-files floor.
// Usage: node validate.mjs --roles publishers,subscribers,... RENDERED.yaml
// Prints one "FAIL Kind/name: why" line per problem and exits 1, or one "ok:" line and exits 0;
// exits 2 on bad usage.
import { readFileSync, readdirSync, statSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";

const SECRET_NAME = "msgscope-agent-secret";
const SECRET_KEY = "secret";
const ALL_ROLES = ["publishers", "subscribers", "sender", "receiver", "relay"];
// roles that hold thousands of sockets (the relay proxies ZeroMQ scenarios) and so set a floor
const MANY_SOCKETS = new Set(["publishers", "subscribers", "relay"]);
const MIN_NOFILE = 65536;

function usage(msg) {
  console.error(`validate.mjs: ${msg}\nusage: node validate.mjs --roles ROLE[,ROLE...] RENDERED.yaml`);
  process.exit(2);
}

const argv = process.argv.slice(2);
let roles = null;
let file = null;
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === "--roles") {
    roles = (argv[++i] ?? "").split(",").filter((r) => r !== "");
  } else if (file === null) {
    file = argv[i];
  } else {
    usage(`unexpected argument '${argv[i]}'`);
  }
}
if (roles === null || roles.length === 0) usage("--roles is required");
for (const r of roles) if (!ALL_ROLES.includes(r)) usage(`unknown role '${r}' (known: ${ALL_ROLES.join(", ")})`);
if (file === null) usage("the rendered manifests file is required");

const failures = [];
const fail = (obj, why) => failures.push(`FAIL ${obj.kind ?? "?"}/${obj.metadata?.name ?? "?"}: ${why}`);

// ---- the type declarations: property names of every Kubernetes type, for unknown fields ----

function findPackageDir(name) {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dirname(dir) === dir) throw new Error(`cannot find the npm package ${name} (run npm install next to this script)`);
  }
}

function dtsFiles(dir, out = []) {
  for (const entry of readdirSync(dir)) {
    const p = join(dir, entry);
    if (statSync(p).isDirectory()) {
      if (entry !== "_schemas" && entry !== "node_modules") dtsFiles(p, out);
    } else if (entry.endsWith(".d.ts") && entry !== "index.d.ts") {
      out.push(p);
    }
  }
  return out;
}

/** Splits text on `sep` at bracket depth 0 ({}, <>, (), []). */
function splitTop(text, sep) {
  const parts = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "{" || c === "<" || c === "(" || c === "[") depth++;
    else if (c === "}" || c === ">" || c === ")" || c === "]") depth--;
    else if (c === sep && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((s) => s.trim()).filter((s) => s !== "");
}

/** Every `export interface` in the declarations: name (local and exported alias) -> {prop: type}. */
function loadInterfaces(dirs) {
  const types = new Map();
  for (const dir of dirs) {
    for (const f of dtsFiles(dir)) {
      const text = readFileSync(f, "utf8").replace(/\/\*[\s\S]*?\*\//g, "");
      const local = new Map();
      const re = /export interface (\w+)(?:\s+extends\s+[^{]+)?\s*\{/g;
      let m;
      while ((m = re.exec(text)) !== null) {
        let depth = 1;
        let i = re.lastIndex;
        for (; i < text.length && depth > 0; i++) {
          if (text[i] === "{") depth++;
          else if (text[i] === "}") depth--;
        }
        const props = new Map();
        for (const member of splitTop(text.slice(re.lastIndex, i - 1), ";")) {
          const pm = /^"([^"]+)"\??\s*:\s*([\s\S]+)$/.exec(member);
          if (pm) props.set(pm[1], pm[2].trim());
        }
        local.set(m[1], props);
        types.set(m[1] + "@" + f, props);
      }
      for (const am of text.matchAll(/export type \{([^}]*)\}/g)) {
        for (const pair of am[1].split(",")) {
          const [from, to] = pair.split(/\s+as\s+/).map((s) => s.trim());
          if (to && local.has(from)) types.set(to, local.get(from));
        }
      }
    }
  }
  return types;
}

const modelsDir = findPackageDir("kubernetes-models");
const modelsVersion = JSON.parse(readFileSync(join(modelsDir, "package.json"), "utf8")).version;
const interfaces = loadInterfaces([modelsDir, findPackageDir("@kubernetes-models/apimachinery")]);

function unknownFields(value, type, path, out) {
  type = type.trim();
  if (value === null || typeof value !== "object") return;
  const arr = /^Array<([\s\S]*)>$/.exec(type);
  if (arr) {
    if (Array.isArray(value)) value.forEach((v, i) => unknownFields(v, arr[1], `${path}[${i}]`, out));
    return;
  }
  const map = /^\{\s*\[key: string\]:\s*([\s\S]*?);?\s*\}$/.exec(type);
  if (map) {
    for (const [k, v] of Object.entries(value)) unknownFields(v, map[1], `${path}.${k}`, out);
    return;
  }
  const props = interfaces.get(type);
  if (!props || Array.isArray(value)) return; // a scalar alias (Quantity, IntOrString, Time) or free-form JSON
  for (const [k, v] of Object.entries(value)) {
    if (!props.has(k)) out.push(`${path}.${k}: unknown field (not in ${type.split("@")[0].replace(/^I(IoK8s)?/, "")})`);
    else unknownFields(v, props.get(k), `${path}.${k}`, out);
  }
}

// ---- schema validation of every object ----

async function modelFor(obj) {
  const apiVersion = String(obj.apiVersion ?? "");
  const kind = String(obj.kind ?? "");
  if (!/^[\w.-]+(\/[\w]+)?$/.test(apiVersion) || !/^\w+$/.test(kind)) return null;
  const modulePath = `kubernetes-models/${apiVersion}/${kind}`;
  const declaration = join(modelsDir, apiVersion, `${kind}.d.ts`);
  try {
    const mod = await import(modulePath);
    return { Model: mod[kind], declaration };
  } catch {
    return null;
  }
}

const text = readFileSync(file, "utf8");
const docs = parseAllDocuments(text, { version: "1.1" }); // Kubernetes reads YAML 1.1 (0400 is octal)
const objects = [];
for (const doc of Array.isArray(docs) ? docs : [docs]) {
  if (doc.errors.length > 0) {
    failures.push(`FAIL ${file}: YAML: ${doc.errors[0].message.split("\n")[0]}`);
    continue;
  }
  const obj = doc.toJS();
  if (obj !== null && obj !== undefined) objects.push(obj);
}
if (objects.length === 0 && failures.length === 0) failures.push(`FAIL ${file}: no objects`);

for (const obj of objects) {
  const model = await modelFor(obj);
  if (model === null || model.Model === undefined) {
    fail(obj, `no Kubernetes schema for apiVersion '${obj.apiVersion}' kind '${obj.kind}'`);
    continue;
  }
  try {
    new model.Model(obj).validate();
  } catch (e) {
    fail(obj, `schema: ${String(e.message).split("\n")[0]}`);
  }
  const extra = [];
  const topName = `I${obj.kind}@${model.declaration}`;
  if (interfaces.has(topName)) {
    unknownFields(obj, topName, obj.kind, extra);
  } else {
    extra.push(`no type declaration found for ${obj.kind} (cannot check unknown fields)`);
  }
  for (const e of extra) fail(obj, e);
}

// ---- what msgscope needs ----

const UNITS = { "": 1, n: 1e-9, u: 1e-6, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4 };
function quantity(q) {
  const m = /^([+-]?\d+(?:\.\d+)?)([a-zA-Z]*)$/.exec(String(q));
  if (!m || !(m[2] in UNITS)) return NaN;
  return Number(m[1]) * UNITS[m[2]];
}

const byKind = (kind) => objects.filter((o) => o.kind === kind);
const find = (kind, name) => objects.find((o) => o.kind === kind && o.metadata?.name === name);
const labelsMatch = (selector, labels) =>
  Object.entries(selector ?? {}).every(([k, v]) => (labels ?? {})[k] === v);

/** A container's port: a number as is, a name looked up among its ports. */
function resolvePort(container, ref) {
  if (typeof ref === "number") return ref;
  const p = (container.ports ?? []).find((x) => x.name === ref);
  return p ? p.containerPort : NaN;
}

function checkGuaranteed(obj, pod) {
  for (const c of [...(pod.initContainers ?? []), ...(pod.containers ?? [])]) {
    for (const res of ["cpu", "memory"]) {
      const req = c.resources?.requests?.[res];
      const lim = c.resources?.limits?.[res];
      if (req === undefined || lim === undefined) {
        fail(obj, `container ${c.name}: ${res} needs both a request and a limit (Guaranteed QoS)`);
      } else if (!(quantity(req) === quantity(lim))) {
        fail(obj, `container ${c.name}: ${res} request ${req} differs from its limit ${lim} (not Guaranteed QoS)`);
      }
    }
    const sc = c.securityContext ?? {};
    if (sc.privileged === true) fail(obj, `container ${c.name} is privileged`);
    if (sc.allowPrivilegeEscalation !== false) fail(obj, `container ${c.name}: allowPrivilegeEscalation must be false`);
    if (!(sc.capabilities?.drop ?? []).includes("ALL")) fail(obj, `container ${c.name}: must drop ALL capabilities`);
  }
}

/**
 * The shared secret: a Secret volume (no group/other bits) that an init container copies, 0600 and
 * owned by the pod's user, into an in-memory emptyDir the main container mounts read-only.
 * Returns the path of the copy in the main container, or null.
 */
function checkSecret(obj, pod, main) {
  const volumes = pod.volumes ?? [];
  const source = volumes.find((v) => v.secret?.secretName === SECRET_NAME);
  if (!source) {
    fail(obj, `no volume from the Secret ${SECRET_NAME}`);
    return null;
  }
  const item = (source.secret.items ?? []).find((i) => i.key === SECRET_KEY);
  if (!item) fail(obj, `the Secret volume must project the key '${SECRET_KEY}'`);
  const mode = item?.mode ?? source.secret.defaultMode ?? 0o644;
  if ((mode & 0o077) !== 0) fail(obj, `the Secret volume's mode ${mode.toString(8)} lets group or others read it`);
  if (source.secret.optional === true) fail(obj, "the Secret volume must not be optional");
  const uid = pod.securityContext?.runAsUser;
  const gid = pod.securityContext?.runAsGroup;
  if (pod.securityContext?.runAsNonRoot !== true || uid === undefined || uid === 0) {
    fail(obj, "the pod must run as a non-root runAsUser");
  }
  if (pod.securityContext?.fsGroup !== undefined) {
    fail(obj, "fsGroup makes the secret group-readable, which msgscope refuses");
  }
  const copier = (pod.initContainers ?? []).find((c) => (c.volumeMounts ?? []).some((m) => m.name === source.name));
  if (!copier) {
    fail(obj, `no init container copies the Secret ${SECRET_NAME}`);
    return null;
  }
  const copyMount = (copier.volumeMounts ?? []).find((m) => m.name !== source.name && m.readOnly !== true);
  const copyVolume = volumes.find((v) => v.name === copyMount?.name);
  if (!copyVolume?.emptyDir || copyVolume.emptyDir.medium !== "Memory") {
    fail(obj, `init container ${copier.name} must copy the secret into an emptyDir with medium Memory`);
    return null;
  }
  const copied = `${copyMount.mountPath}/${SECRET_KEY}`;
  const script = (copier.command ?? []).concat(copier.args ?? []).join(" ");
  if (!script.includes(`chmod 0600 ${copied}`)) fail(obj, `init container ${copier.name} must chmod 0600 ${copied}`);
  if (!script.includes(`chown ${uid}:${gid} ${copied}`)) fail(obj, `init container ${copier.name} must chown ${uid}:${gid} ${copied}`);
  const caps = copier.securityContext?.capabilities?.add ?? [];
  if (caps.length !== 1 || caps[0] !== "CHOWN") fail(obj, `init container ${copier.name} may add the CHOWN capability only`);
  const mainMount = (main.volumeMounts ?? []).find((m) => m.name === copyVolume.name);
  if (!mainMount) {
    fail(obj, `container ${main.name} does not mount the copied secret`);
    return null;
  }
  if (mainMount.readOnly !== true) fail(obj, `container ${main.name} must mount the secret read-only`);
  if ((main.volumeMounts ?? []).some((m) => m.name === source.name)) {
    fail(obj, `container ${main.name} must not mount the Secret volume itself`);
  }
  return `${mainMount.mountPath}/${SECRET_KEY}`;
}

function argAfter(args, flag) {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
}

function requiredTerms(pod, kind) {
  return pod.affinity?.[kind]?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
}

function checkAgent(role, roleSelected) {
  const sts = find("StatefulSet", role);
  if (!sts) {
    failures.push(`FAIL StatefulSet/${role}: missing (role ${role} was asked for)`);
    return;
  }
  const pod = sts.spec?.template?.spec ?? {};
  const podLabels = sts.spec?.template?.metadata?.labels ?? {};
  const selector = sts.spec?.selector?.matchLabels ?? {};
  if (Object.keys(selector).length === 0 || !labelsMatch(selector, podLabels)) {
    fail(sts, "the selector must match the pod template's labels");
  }
  if (podLabels["app.kubernetes.io/component"] !== role) fail(sts, `pods must be labelled app.kubernetes.io/component=${role}`);
  const agent = (pod.containers ?? []).find((c) => c.name === "agent");
  if (!agent) {
    fail(sts, "no container named agent");
    return;
  }
  const args = [...(agent.command ?? []), ...(agent.args ?? [])];
  if (!args.includes("agent")) fail(sts, "the agent container must run `msgscope agent`");
  if (argAfter(args, "--role") !== role) fail(sts, `--role must be ${role}, got ${argAfter(args, "--role")}`);
  const control = (agent.ports ?? []).find((p) => p.name === "control");
  if (!control) {
    fail(sts, "the agent container needs a port named control");
    return;
  }
  const port = control.containerPort;
  const listen = argAfter(args, "--listen");
  if (listen !== `0.0.0.0:${port}`) fail(sts, `--listen must be 0.0.0.0:${port} (the control port), got ${listen}`);
  for (const probe of ["startupProbe", "readinessProbe", "livenessProbe"]) {
    const p = agent[probe];
    if (!p) {
      if (probe !== "startupProbe") fail(sts, `no ${probe}`);
      continue;
    }
    if (!p.tcpSocket) fail(sts, `${probe} must be a tcpSocket probe on the control port`);
    else if (resolvePort(agent, p.tcpSocket.port) !== port) fail(sts, `${probe} probes port ${p.tcpSocket.port}, not the control port ${port}`);
  }
  // Guaranteed QoS, whole CPUs for the static CPU manager
  checkGuaranteed(sts, pod);
  const cpu = quantity(agent.resources?.limits?.cpu);
  if (!(Number.isInteger(cpu) && cpu >= 1)) {
    fail(sts, `the agent's CPU must be a whole number of cores for exclusive cores, got ${agent.resources?.limits?.cpu}`);
  }
  const secretFile = checkSecret(sts, pod, agent);
  if (secretFile !== null && argAfter(args, "--secret-file") !== secretFile) {
    fail(sts, `--secret-file must be ${secretFile} (the copied secret), got ${argAfter(args, "--secret-file")}`);
  }
  if (pod.securityContext?.runAsNonRoot !== true) fail(sts, "agents run as non-root");
  if (agent.securityContext?.readOnlyRootFilesystem !== true) fail(sts, "the agent's root file system must be read-only");
  if (MANY_SOCKETS.has(role)) {
    const floor = (agent.env ?? []).find((e) => e.name === "MSGSCOPE_MIN_NOFILE")?.value;
    if (!(Number(floor) >= MIN_NOFILE)) fail(sts, `MSGSCOPE_MIN_NOFILE must be at least ${MIN_NOFILE} (thousands of sockets), got ${floor}`);
  }
  // agents of one role spread over nodes
  const spread = requiredTerms(pod, "podAntiAffinity").some(
    (t) => t.topologyKey === "kubernetes.io/hostname" && labelsMatch(t.labelSelector?.matchLabels, podLabels)
      && Object.keys(t.labelSelector?.matchLabels ?? {}).length > 0);
  if (!spread) fail(sts, "needs a required podAntiAffinity on kubernetes.io/hostname against its own pods (one agent of a role per node)");
  // the headless Service the coordinator resolves to one address per agent
  const svcName = sts.spec?.serviceName;
  const svc = find("Service", svcName);
  if (svcName !== role) fail(sts, `serviceName must be ${role}, got ${svcName}`);
  if (!svc) {
    fail(sts, `its headless Service ${svcName} is missing`);
    return;
  }
  if (svc.spec?.clusterIP !== "None") fail(svc, `must be headless (clusterIP: None), got ${svc.spec?.clusterIP}`);
  if (svc.spec?.publishNotReadyAddresses === true) fail(svc, "must list ready agents only (publishNotReadyAddresses)");
  if (!labelsMatch(svc.spec?.selector, podLabels) || Object.keys(svc.spec?.selector ?? {}).length === 0) {
    fail(svc, `its selector must select the ${role} pods`);
  }
  for (const other of objects.filter((o) => o.kind === "StatefulSet" && o !== sts)) {
    const otherLabels = other.spec?.template?.metadata?.labels ?? {};
    if (labelsMatch(svc.spec?.selector, otherLabels)) fail(svc, `its selector also selects StatefulSet/${other.metadata.name}'s pods`);
  }
  const svcPort = (svc.spec?.ports ?? []).find((p) => p.name === "control");
  if (!svcPort) fail(svc, "needs a port named control");
  else {
    if (svcPort.port !== port) fail(svc, `port ${svcPort.port} differs from the agent's control port ${port}`);
    if (resolvePort(agent, svcPort.targetPort ?? svcPort.port) !== port) fail(svc, `targetPort ${svcPort.targetPort} is not the control port ${port}`);
  }
  if (role === "receiver" && roleSelected.includes("sender")) {
    const withSender = requiredTerms(pod, "podAffinity").some(
      (t) => t.topologyKey === "kubernetes.io/hostname" && t.labelSelector?.matchLabels?.["app.kubernetes.io/component"] === "sender");
    if (!withSender) fail(sts, "the receiver needs a required podAffinity to the sender's node (M1: one box, one clock)");
  }
  if (role === "relay") {
    const apart = ["sender", "receiver"].every((r) => requiredTerms(pod, "podAntiAffinity").some(
      (t) => t.topologyKey === "kubernetes.io/hostname" && t.labelSelector?.matchLabels?.["app.kubernetes.io/component"] === r));
    if (!apart) fail(sts, "the relay needs a required podAntiAffinity to the sender's and receiver's nodes (M1: the broker box)");
  }
}

if (failures.length === 0) {
  const namespaces = byKind("Namespace");
  if (namespaces.length !== 1) failures.push(`FAIL Namespace/?: expected one Namespace, got ${namespaces.length}`);
  const ns = namespaces[0]?.metadata?.name;
  for (const o of objects) {
    if (o.kind !== "Namespace" && o.metadata?.namespace !== ns) fail(o, `must be in namespace ${ns}, got ${o.metadata?.namespace}`);
  }
  const agentSets = byKind("StatefulSet").map((s) => s.metadata?.name);
  for (const name of agentSets) {
    if (!roles.includes(name)) failures.push(`FAIL StatefulSet/${name}: not one of the roles asked for (${roles.join(", ")})`);
  }
  for (const role of roles) checkAgent(role, roles);
  const coordinator = find("Deployment", "coordinator");
  if (!coordinator) {
    failures.push("FAIL Deployment/coordinator: missing");
  } else {
    const pod = coordinator.spec?.template?.spec ?? {};
    checkGuaranteed(coordinator, pod);
    const main = (pod.containers ?? [])[0] ?? {};
    checkSecret(coordinator, pod, main);
  }
  const secret = find("Secret", SECRET_NAME);
  if (secret) {
    const value = secret.data?.[SECRET_KEY] !== undefined
      ? Buffer.from(String(secret.data[SECRET_KEY]), "base64").toString("utf8")
      : String(secret.stringData?.[SECRET_KEY] ?? "");
    if (Buffer.byteLength(value.trim(), "utf8") < 16) fail(secret, `key '${SECRET_KEY}' must hold at least 16 bytes (msgscope refuses shorter secrets)`);
  }
  const images = new Set(objects.flatMap((o) => {
    const pod = o.spec?.template?.spec;
    return pod ? [...(pod.initContainers ?? []), ...(pod.containers ?? [])].map((c) => c.image) : [];
  }));
  if (images.size !== 1) failures.push(`FAIL images: every container should run the one msgscope image, got ${[...images].join(", ")}`);
}

if (failures.length > 0) {
  for (const f of failures) console.log(f);
  process.exit(1);
}
console.log(`ok: ${objects.length} objects valid against the Kubernetes API schemas (kubernetes-models ${modelsVersion},`
  + ` unknown fields refused); agents ${roles.join(", ")}: headless Services, Guaranteed QoS, secret 0600, ports agree`);
