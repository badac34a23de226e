package io.sluice.benchmarks.wrk;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs Debian's {@code wrk} with the benchmark's Lua script and reads the line the script prints. */
final class Wrk {
    private static final String SCRIPT = "clients.lua";
    /** How long past its duration a wrk run may take before it is killed. */
    private static final long GRACE_SECONDS = 30;

    /** One wrk run: completed requests over its duration, errors, latency percentiles. */
    record Result(long requests, double seconds, long non2xx, long socketErrors, long p50Micros, long p99Micros) {
        double perSecond() {
            return requests / seconds;
        }
    }

    private final Path script;
    private final int threads;

    Wrk(Path workDirectory, int threads) throws IOException {
        this.threads = threads;
        this.script = workDirectory.resolve(SCRIPT);
        try (InputStream in = Wrk.class.getResourceAsStream(SCRIPT)) {
            if (in == null) throw new IllegalStateException(SCRIPT + " missing from the class path");
            Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    Result run(String url, int connections, int clients, int seconds) {
        List<String> command = new ArrayList<>(List.of("wrk", "-t" + threads, "-c" + connections, "-d" + seconds + "s",
                "--timeout", "5s", "-s", script.toString(), url, "--", Integer.toString(clients)));
        try {
            Path out = Files.createTempFile(script.getParent(), "wrk", ".out");
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            if (!p.waitFor(seconds + GRACE_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("wrk did not finish: " + command);
            }
            String text = Files.readString(out);
            Files.delete(out);
            return parse(text, command);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: " + command, e);
        }
    }

    static Result parse(String text, List<String> command) {
        String line = text.lines().filter(l -> l.startsWith("sluice-wrk ")).findFirst()
                .orElseThrow(() -> new IllegalStateException("no result from " + command + ":\n" + text));
        Map<String, Long> v = new HashMap<>();
        for (String pair : line.substring("sluice-wrk ".length()).trim().split(" ")) {
            String[] kv = pair.split("=");
            v.put(kv[0], Long.parseLong(kv[1]));
        }
        return new Result(v.get("requests"), v.get("duration_us") / 1e6, v.get("status"),
                v.get("connect") + v.get("read") + v.get("write") + v.get("timeout"), v.get("p50_us"), v.get("p99_us"));
    }

    /** Whether wrk is on the PATH. */
    static boolean installed() {
        try {
            Process p = new ProcessBuilder("wrk", "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            p.waitFor(10, TimeUnit.SECONDS);
            return true;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
