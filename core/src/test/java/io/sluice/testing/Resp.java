package io.sluice.testing;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A minimal RESP2 connection for test administration (SHUTDOWN, DEBUG SLEEP, CLIENT PAUSE, CLUSTER ...,
 * SENTINEL ..., KEYS, TTL): what {@code redis-cli} would send, without needing it installed.
 * Replies: simple and bulk strings as {@code String}, integers as {@code Long}, arrays as {@code List},
 * null as {@code null}; an error reply throws {@link RedisError}.
 */
public final class Resp implements AutoCloseable {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    private Resp(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new BufferedInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    public static Resp connect(int port, Duration timeout) {
        Socket socket = new Socket();
        try {
            socket.connect(new InetSocketAddress("127.0.0.1", port), (int) timeout.toMillis());
            socket.setSoTimeout((int) timeout.toMillis());
            return new Resp(socket);
        } catch (IOException e) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // already failing
            }
            throw new UncheckedIOException("cannot connect to Redis on port " + port, e);
        }
    }

    public Object call(String... args) {
        send(args);
        return read();
    }

    public void send(String... args) {
        try {
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            buf.write(("*" + args.length + "\r\n").getBytes(StandardCharsets.UTF_8));
            for (String arg : args) {
                byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
                buf.write(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.UTF_8));
                buf.write(bytes);
                buf.write("\r\n".getBytes(StandardCharsets.UTF_8));
            }
            out.write(buf.toByteArray());
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Object read() {
        try {
            int type = in.read();
            if (type < 0) throw new IOException("connection closed");
            String line = line();
            switch (type) {
                case '+':
                    return line;
                case '-':
                    throw new RedisError(line);
                case ':':
                    return Long.parseLong(line);
                case '$': {
                    int length = Integer.parseInt(line);
                    if (length < 0) return null;
                    byte[] bytes = in.readNBytes(length + 2);
                    return new String(bytes, 0, length, StandardCharsets.UTF_8);
                }
                case '*': {
                    int count = Integer.parseInt(line);
                    if (count < 0) return null;
                    List<Object> items = new ArrayList<>(count);
                    for (int i = 0; i < count; i++) {
                        try {
                            items.add(read());
                        } catch (RedisError e) {
                            items.add(e);
                        }
                    }
                    return items;
                }
                default:
                    throw new IOException("unexpected RESP type " + (char) type);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String line() throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != '\r') {
            if (b < 0) throw new IOException("connection closed");
            buf.write(b);
        }
        in.read(); // '\n'
        return buf.toString(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing
        }
    }

    /** An error reply from Redis. */
    public static final class RedisError extends RuntimeException {
        public RedisError(String message) {
            super(message);
        }
    }
}
