// A many-connection MQTT peer for benchmarks/scripts/scale.sh (issue 13): N publisher and N subscriber
// connections on npm's `mqtt` package in one Node process, pair i on topic PREFIX/i, each publisher at
// RATE msg/s for DURATION s after WARMUP s; the payload's first 8 bytes carry the send time (epoch ms
// as a double, enough for this peer's purpose). Prints one JSON line: connections, set-up seconds,
// messages sent and received in the measurement, the process's CPU time over it and CPU per message.
// Usage: node mqtt-fleet.js URL N RATE DURATION WARMUP QOS
const mqtt = require('mqtt');
const [url, n, rate, duration, warmup, qos] = [process.argv[2], +process.argv[3], +process.argv[4],
  +process.argv[5], +process.argv[6], +process.argv[7]];
const prefix = 'fleet/' + Math.random().toString(16).slice(2);
const pubs = [], subs = [];
let connected = 0, received = 0, sent = 0, measuring = false;
const t0 = Date.now();

function connect() {
  return new Promise((resolve, reject) => {
    const c = mqtt.connect(url, { protocolVersion: 4, clean: true, reconnectPeriod: 0, connectTimeout: 30000 });
    c.once('connect', () => { connected++; resolve(c); });
    c.once('error', reject);
  });
}

async function main() {
  for (let i = 0; i < n; i++) {
    const s = await connect();
    await new Promise((res, rej) => s.subscribe(prefix + '/' + i, { qos }, e => e ? rej(e) : res()));
    s.on('message', () => { if (measuring) received++; });
    subs.push(s);
    pubs.push(await connect());
  }
  const setup = (Date.now() - t0) / 1000;
  const payload = Buffer.alloc(64);
  const period = 1000 / rate;
  const timers = pubs.map((p, i) => setTimeout(() => {
    const t = setInterval(() => {
      payload.writeDoubleLE(Date.now(), 0);
      p.publish(prefix + '/' + i, payload, { qos });
      if (measuring) sent++;
    }, period);
    timers[i] = t;
  }, (i / n) * period));
  await new Promise(r => setTimeout(r, warmup * 1000));
  measuring = true;
  const cpu0 = process.cpuUsage();
  await new Promise(r => setTimeout(r, duration * 1000));
  timers.forEach(t => clearInterval(t));
  const cpu = process.cpuUsage(cpu0);
  await new Promise(r => setTimeout(r, 2000)); // in flight
  measuring = false;
  const cpuMs = (cpu.user + cpu.system) / 1000;
  console.log(JSON.stringify({ connections: connected, setup_s: setup, sent, received,
    delivery_rate: sent ? received / sent : 0, cpu_ms: cpuMs, cpu_us_per_delivered: received ? cpuMs * 1000 / received : null }));
  [...pubs, ...subs].forEach(c => c.end(true));
  process.exit(0);
}
main().catch(e => { console.error('mqtt-fleet: ' + e.message); process.exit(1); });
