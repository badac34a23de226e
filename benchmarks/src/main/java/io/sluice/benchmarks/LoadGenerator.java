package io.sluice.benchmarks;

import org.HdrHistogram.Histogram;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * An HTTP/1.1 load generator on loopback with a fixed number of keep-alive connections, one thread each.
 * Open loop: request {@code i} is due at {@code start + i / rate}; a free connection takes the next due
 * request, waits for its time and sends it, and its latency counts from when it was due, not when it was
 * sent, so a stalled server is charged for every request it delayed (no coordinated omission). With
 * {@code rate == 0} it is closed loop: every connection sends its next request as soon as the last answered.
 */
final class LoadGenerator {
    record Result(long requests, long non2xx, double seconds, Histogram latencyMicros) {
        double perSecond() {
            return requests / seconds;
        }

        String describe() {
            return String.format("%,.0f req/s, p50 %,d µs, p99 %,d µs, p99.9 %,d µs (%d requests, %d non-2xx)",
                    perSecond(), latencyMicros.getValueAtPercentile(50), latencyMicros.getValueAtPercentile(99),
                    latencyMicros.getValueAtPercentile(99.9), requests, non2xx);
        }
    }

    private LoadGenerator() {
    }

    /**
     * Sends requests to {@code 127.0.0.1:port} for {@code seconds}; each connection sends header X-User taken
     * round-robin from {@code users} distinct values.
     */
    static Result run(int port, String path, int connections, double rate, double seconds, int users) throws InterruptedException {
        long start = System.nanoTime() + 20_000_000L;
        long end = start + (long) (seconds * 1e9);
        AtomicLong next = new AtomicLong();
        AtomicLong non2xx = new AtomicLong();
        AtomicLong done = new AtomicLong();
        List<Histogram> histograms = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        double intervalNanos = rate > 0 ? 1e9 / rate : 0;
        List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int c = 0; c < connections; c++) {
            Histogram h = new Histogram(60_000_000L, 3);
            histograms.add(h);
            Thread t = new Thread(() -> {
                try (Socket socket = new Socket()) {
                    socket.setTcpNoDelay(true);
                    socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
                    socket.setSoTimeout(30_000);
                    OutputStream out = socket.getOutputStream();
                    InputStream in = new BufferedInputStream(socket.getInputStream(), 8192);
                    LockSupport.parkNanos(start - System.nanoTime());
                    while (true) {
                        long i = next.getAndIncrement();
                        long due = rate > 0 ? start + (long) (i * intervalNanos) : System.nanoTime();
                        if (due >= end) break;
                        long wait = due - System.nanoTime();
                        if (wait > 0) LockSupport.parkNanos(wait);
                        byte[] request = ("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-User: user-" + (i % users)
                                + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
                        out.write(request);
                        out.flush();
                        int status = readResponse(in);
                        if (status < 200 || status > 299) non2xx.incrementAndGet();
                        h.recordValue(Math.max(0, (System.nanoTime() - due) / 1000));
                        done.incrementAndGet();
                    }
                } catch (IOException | RuntimeException e) {
                    errors.add(e);
                }
            }, "load-" + c);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) t.join(60_000 + (long) (seconds * 1000));
        if (!errors.isEmpty()) throw new IllegalStateException("load generator failed", errors.get(0));
        Histogram all = new Histogram(60_000_000L, 3);
        histograms.forEach(all::add);
        double elapsed = Math.max(1e-9, (Math.max(System.nanoTime(), end) - start) / 1e9);
        return new Result(done.get(), non2xx.get(), Math.min(elapsed, seconds + 60), all);
    }

    /** Reads one response (status line, headers, a Content-Length body or chunks); returns the status. */
    private static int readResponse(InputStream in) throws IOException {
        String statusLine = line(in);
        int status = Integer.parseInt(statusLine.substring(9, 12));
        long length = 0;
        boolean chunked = false;
        for (String h = line(in); !h.isEmpty(); h = line(in)) {
            int colon = h.indexOf(':');
            String name = h.substring(0, colon).trim();
            if (name.equalsIgnoreCase("Content-Length")) length = Long.parseLong(h.substring(colon + 1).trim());
            if (name.equalsIgnoreCase("Transfer-Encoding") && h.toLowerCase().contains("chunked")) chunked = true;
        }
        if (chunked) {
            for (long size = Long.parseLong(line(in).trim(), 16); size > 0; size = Long.parseLong(line(in).trim(), 16)) {
                skip(in, size);
                line(in);
            }
            line(in);
        } else {
            skip(in, length);
        }
        return status;
    }

    private static void skip(InputStream in, long n) throws IOException {
        while (n > 0) {
            long skipped = in.skip(n);
            if (skipped <= 0) {
                if (in.read() < 0) throw new IOException("connection closed");
                skipped = 1;
            }
            n -= skipped;
        }
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder(64);
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) throw new IOException("connection closed");
            if (b != '\r') sb.append((char) b);
        }
        return sb.toString();
    }
}
