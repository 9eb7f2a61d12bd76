package io.msgscope.bench.peers;

import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * The native peer for msgscope's ZeroMQ driver (issue 5): a plain JeroMQ PUSH → PULL loop on loopback
 * TCP, one thread each, high-water marks unlimited as msgscope's default (so nothing is dropped or
 * blocked at JeroMQ's HWM of 1000). JeroMQ publishes no throughput figures for this machine, so this
 * loop is the reference.
 *
 * <pre>java -cp benchmarks.jar io.msgscope.bench.peers.PlainZmq [count] [warmup] [size]</pre>
 * prints {@code sent= received= lost= send_msg_s= receive_msg_s=}.
 */
public final class PlainZmq {
    private PlainZmq() {
    }

    public static void main(String[] args) throws Exception {
        long[] s = PeerCount.sizes(args, 0);
        final int size = (int) s[2];
        PeerCount count = new PeerCount();
        try (ZContext ctx = new ZContext(1)) {
            ZMQ.Socket pull = ctx.createSocket(SocketType.PULL);
            pull.setRcvHWM(0);
            pull.setReceiveTimeOut(200);
            int port = pull.bindToRandomPort("tcp://127.0.0.1");
            ZMQ.Socket push = ctx.createSocket(SocketType.PUSH);
            push.setSndHWM(0);
            push.setLinger(5000);
            push.connect("tcp://127.0.0.1:" + port);
            final long total = s[0] + s[1];
            Thread receiver = new Thread(() -> {
                byte[] buf = new byte[size + 1];
                long got = 0;
                long idleSince = System.nanoTime();
                while (got < total && System.nanoTime() - idleSince < 5_000_000_000L) {
                    if (pull.recv(buf, 0, buf.length, 0) >= 0) {
                        count.arrived(buf[0]);
                        got++;
                        idleSince = System.nanoTime();
                    }
                }
            }, "peer-zmq-pull");
            receiver.start();
            byte[] warm = new byte[size];
            warm[0] = 1;
            for (long i = 0; i < s[1]; i++) {
                push.send(warm, 0, size, 0);
            }
            count.await(true, s[1], 2000);
            byte[] msg = new byte[size];
            long t0 = System.nanoTime();
            for (long i = 0; i < s[0]; i++) {
                push.send(msg, 0, size, 0);
            }
            long sendNs = System.nanoTime() - t0;
            count.await(false, s[0], 2000);
            receiver.join();
            System.out.println(count.report(s[0], t0, sendNs));
        }
    }
}
