package io.sluice.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy on a free loopback port in front of a Redis, to put between Redisson and {@code redis-server}
 * and break the network on demand:
 * <ul>
 *   <li>{@link #pass()}: forward both ways;</li>
 *   <li>{@link #latency(Duration)}: forward, each chunk from the client held back for the given time
 *       (no throughput cap: chunks queue with their due time);</li>
 *   <li>{@link #blackhole()}: accept and read, never forward, never answer (a partition); leaving it resets the
 *       connections that fell into it, as a partition that lasts ends with broken connections;</li>
 *   <li>{@link #reset()}: send RST on every open connection, and on every new one while the mode lasts.</li>
 * </ul>
 * Apart from the modes, {@link #slowAtFirst(Duration)} makes Redis slow to answer at first, as a remote Redis behind
 * TLS and AUTH is when an application starts.
 * It counts the Redis commands it actually delivered to Redis, by name ({@link #delivered(String)}), by parsing
 * the RESP stream from the client. Plain threads; every thread and socket ends with {@link #close()}.
 */
public final class ChaosProxy implements AutoCloseable {
    private enum Mode { PASS, LATENCY, BLACKHOLE, RESET }

    private final int targetPort;
    private final ServerSocket server;
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private final Map<String, AtomicLong> delivered = new ConcurrentHashMap<>();
    private volatile Mode mode = Mode.PASS;
    private volatile long latencyNanos;
    /** What clients send before this {@link System#nanoTime()} reaches Redis only then. */
    private volatile long heldUntilNanos = System.nanoTime();
    private volatile boolean closed;

    private ChaosProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        Thread acceptor = new Thread(this::acceptLoop, "chaos-proxy-accept-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** A proxy to {@code 127.0.0.1:targetPort}, in {@link #pass()} mode. */
    public static ChaosProxy to(int targetPort) {
        try {
            return new ChaosProxy(targetPort);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public int port() {
        return server.getLocalPort();
    }

    /** {@code redis://127.0.0.1:port} of the proxy. */
    public String address() {
        return "redis://127.0.0.1:" + port();
    }

    public void pass() {
        switchTo(Mode.PASS);
    }

    public void latency(Duration added) {
        latencyNanos = added.toNanos();
        switchTo(Mode.LATENCY);
    }

    /**
     * What clients send within {@code hold} from now reaches Redis only when {@code hold} has passed, and later
     * commands go through at once: a Redis that answers its first commands slowly. Applies in every mode that forwards.
     */
    public void slowAtFirst(Duration hold) {
        heldUntilNanos = System.nanoTime() + hold.toNanos();
    }

    public void blackhole() {
        switchTo(Mode.BLACKHOLE);
    }

    public void reset() {
        switchTo(Mode.RESET);
        links.forEach(Link::reset);
    }

    private synchronized void switchTo(Mode next) {
        Mode previous = mode;
        mode = next;
        if (previous == Mode.BLACKHOLE && next != Mode.BLACKHOLE) {
            links.stream().filter(l -> l.blackholed).forEach(Link::reset);
        }
    }

    /** Commands with this name (case-insensitive, such as {@code EVALSHA}) delivered to Redis so far. */
    public long delivered(String command) {
        AtomicLong n = delivered.get(command.toUpperCase(Locale.ROOT));
        return n == null ? 0 : n.get();
    }

    /**
     * Chunks the clients sent that are still held back (by {@link #latency}) on live connections: once 0, every
     * command sent so far has reached Redis or been dropped.
     */
    public long heldBack() {
        return links.stream().mapToLong(l -> l.pending.get()).sum();
    }

    /** Script calls ({@code EVAL} and {@code EVALSHA}) delivered to Redis so far: each Sluice decision is one. */
    public long scriptsDelivered() {
        return delivered("EVAL") + delivered("EVALSHA");
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // closing
        }
        links.forEach(Link::reset);
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return; // closed
            }
            Mode now = mode;
            if (now == Mode.RESET) {
                rst(client);
                continue;
            }
            Link link = new Link(client);
            links.add(link);
            if (now == Mode.BLACKHOLE) {
                link.blackholed = true;
                link.start(null);
                continue;
            }
            Socket upstream = new Socket();
            try {
                upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 2_000);
                upstream.setTcpNoDelay(true);
            } catch (IOException e) {
                // Redis is down: the client sees its connection refused the hard way.
                closeQuietly(upstream);
                link.reset();
                continue;
            }
            link.start(upstream);
        }
    }

    private static void rst(Socket s) {
        try {
            s.setSoLinger(true, 0);
        } catch (IOException ignored) {
            // closing anyway
        }
        closeQuietly(s);
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing
        }
    }

    private record Chunk(byte[] bytes, long dueNanos) {
    }

    private static final Chunk END = new Chunk(new byte[0], 0);

    /** One client connection and, unless it was accepted into the blackhole, its upstream connection. */
    private final class Link {
        final Socket client;
        volatile Socket upstream;
        volatile boolean blackholed;
        final BlockingQueue<Chunk> toUpstream = new LinkedBlockingQueue<>();
        /** Chunks read from the client and not yet written upstream (or dropped): held back by the latency. */
        final AtomicLong pending = new AtomicLong();
        final CommandCounter counter = new CommandCounter();

        Link(Socket client) {
            this.client = client;
            try {
                client.setTcpNoDelay(true);
            } catch (IOException ignored) {
                // best effort
            }
        }

        void start(Socket upstreamSocket) {
            this.upstream = upstreamSocket;
            thread("up-read", this::readClient);
            if (upstreamSocket != null) {
                thread("up-write", this::writeUpstream);
                thread("down", this::pumpDown);
            }
        }

        private void thread(String name, Runnable body) {
            Thread t = new Thread(body, "chaos-proxy-" + port() + "-" + name);
            t.setDaemon(true);
            t.start();
        }

        private void readClient() {
            byte[] buf = new byte[16 * 1024];
            try (InputStream in = client.getInputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    Mode m = mode;
                    if (m == Mode.BLACKHOLE || upstream == null) {
                        blackholed = true;
                        continue; // read and dropped: never forwarded, never answered
                    }
                    long due = Math.max(System.nanoTime() + (m == Mode.LATENCY ? latencyNanos : 0),
                            heldUntilNanos);
                    pending.incrementAndGet();
                    toUpstream.add(new Chunk(java.util.Arrays.copyOf(buf, n), due));
                }
            } catch (IOException ignored) {
                // reset or closed
            } finally {
                toUpstream.add(END);
                if (upstream == null) reset();
            }
        }

        private void writeUpstream() {
            try (OutputStream out = upstream.getOutputStream()) {
                while (true) {
                    Chunk c = toUpstream.take();
                    if (c == END) break;
                    long wait = c.dueNanos() - System.nanoTime();
                    if (wait > 0) Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                    try {
                        if (mode == Mode.BLACKHOLE) {
                            blackholed = true;
                            continue;
                        }
                        out.write(c.bytes());
                        out.flush();
                        counter.feed(c.bytes());
                    } finally {
                        pending.decrementAndGet();
                    }
                }
            } catch (IOException | InterruptedException ignored) {
                // reset or closed
            } finally {
                reset();
            }
        }

        private void pumpDown() {
            byte[] buf = new byte[16 * 1024];
            try (InputStream in = upstream.getInputStream(); OutputStream out = client.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    if (mode == Mode.BLACKHOLE) {
                        blackholed = true;
                        continue;
                    }
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException ignored) {
                // reset or closed
            } finally {
                reset();
            }
        }

        void reset() {
            links.remove(this);
            toUpstream.add(END);
            rst(client);
            Socket up = upstream;
            if (up != null) rst(up);
        }

        /** Counts commands in the RESP stream of one connection: arrays of bulk strings, the first is the name. */
        private final class CommandCounter {
            private final StringBuilder line = new StringBuilder();
            private final StringBuilder name = new StringBuilder();
            private long bulkLeft = -1;
            private boolean firstArg;
            private boolean capturing;

            void feed(byte[] bytes) {
                for (int i = 0; i < bytes.length; i++) {
                    if (bulkLeft >= 0) {
                        long take = Math.min(bulkLeft, bytes.length - i);
                        if (capturing) {
                            for (int j = 0; j < take; j++) {
                                if (bulkLeft - j > 2 && name.length() < 32) name.append((char) bytes[i + j]);
                            }
                        }
                        bulkLeft -= take;
                        i += (int) take - 1;
                        if (bulkLeft == 0) {
                            bulkLeft = -1;
                            if (capturing) {
                                delivered.computeIfAbsent(name.toString().toUpperCase(Locale.ROOT), k -> new AtomicLong())
                                        .incrementAndGet();
                                name.setLength(0);
                                capturing = false;
                            }
                        }
                        continue;
                    }
                    char c = (char) (bytes[i] & 0xff);
                    if (c != '\n') {
                        if (c != '\r') line.append(c);
                        continue;
                    }
                    String l = line.toString();
                    line.setLength(0);
                    if (l.startsWith("*")) {
                        firstArg = true;
                    } else if (l.startsWith("$")) {
                        bulkLeft = Long.parseLong(l.substring(1)) + 2;
                        capturing = firstArg;
                        firstArg = false;
                    } else if (!l.isEmpty()) {
                        // an inline command: its first word is the name
                        String inline = l.trim().split(" ", 2)[0];
                        delivered.computeIfAbsent(inline.toUpperCase(Locale.ROOT), k -> new AtomicLong()).incrementAndGet();
                    }
                }
            }
        }
    }

    @Override
    public String toString() {
        return "ChaosProxy[" + port() + " -> " + targetPort + ", " + mode + ", delivered " + delivered + "]";
    }
}
