package io.sluice.benchmarks.wrk;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A servlet container in a JVM of its own, started by the wrk benchmark: its CPU time is read from
 * {@code /proc}, and it is stopped (SIGTERM, then SIGKILL) on {@link #close} and at the latest when the
 * benchmark's JVM exits.
 */
final class ServerProcess implements AutoCloseable {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(180);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(20);
    /** {@code getconf CLK_TCK} on Linux: the unit of {@code /proc/<pid>/stat}'s CPU times. */
    private static final long CLOCK_TICKS_PER_SECOND = 100;
    /** Lets async-profiler attribute samples to the right Java frame between safepoints. */
    static final List<String> PROFILING_OPTIONS = List.of("-XX:+UnlockDiagnosticVMOptions", "-XX:+DebugNonSafepoints");

    private final String name;
    private final Process process;
    private final int port;
    private final Path log;
    private final Thread killAtExit;

    private ServerProcess(String name, Process process, int port, Path log) {
        this.name = name;
        this.process = process;
        this.port = port;
        this.log = log;
        this.killAtExit = new Thread(this::stop, "stop " + name);
        Runtime.getRuntime().addShutdownHook(killAtExit);
    }

    /**
     * A stock Tomcat as {@code catalina.sh run} starts it: {@code CATALINA_HOME} the unpacked distribution,
     * {@code CATALINA_BASE} a copy of its {@code conf/} with the connector on {@code port} at 127.0.0.1 and the
     * shutdown port off, and {@code base/webapps} already holding the applications. Nothing else is changed;
     * {@code jvmOptions} are added to the JVM's (as {@code CATALINA_OPTS} would be).
     */
    static ServerProcess tomcat(Path home, Path base, int port, List<String> jvmOptions) throws IOException {
        Path serverXml = base.resolve("conf/server.xml");
        String stock = Files.readString(serverXml);
        String edited = stock.replace("<Server port=\"8005\"", "<Server port=\"-1\"")
                .replaceFirst("<Connector port=\"8080\" protocol=\"HTTP/1.1\"",
                        "<Connector port=\"" + port + "\" address=\"127.0.0.1\" protocol=\"HTTP/1.1\"");
        if (!edited.contains("port=\"" + port + "\"") || edited.contains("<Server port=\"8005\"")) {
            throw new IllegalStateException("unexpected stock server.xml in " + home);
        }
        Files.writeString(serverXml, edited);
        List<String> command = new ArrayList<>(List.of(java()));
        command.addAll(PROFILING_OPTIONS);
        command.addAll(jvmOptions);
        // The options bin/catalina.sh passes.
        command.addAll(List.of(
                "--add-opens=java.base/java.lang=ALL-UNNAMED", "--add-opens=java.base/java.io=ALL-UNNAMED",
                "--add-opens=java.base/java.util=ALL-UNNAMED", "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
                "--add-opens=java.rmi/sun.rmi.transport=ALL-UNNAMED",
                "-Djava.util.logging.manager=org.apache.juli.ClassLoaderLogManager",
                "-Djava.util.logging.config.file=" + base.resolve("conf/logging.properties"),
                "-Dcatalina.home=" + home, "-Dcatalina.base=" + base, "-Djava.io.tmpdir=" + base.resolve("temp"),
                "-Dorg.apache.catalina.startup.EXIT_ON_INIT_FAILURE=true",
                "-cp", home.resolve("bin/bootstrap.jar") + java.io.File.pathSeparator + home.resolve("bin/tomcat-juli.jar"),
                "org.apache.catalina.startup.Bootstrap", "start"));
        return start("tomcat", command, base, port);
    }

    /** {@link JettyServer} from the benchmarks jar, with {@code jvmOptions} added to its JVM's. */
    static ServerProcess jetty(Path classpath, Path base, int port, String redisAddress, String backendTimeout,
                               List<String> jvmOptions) throws IOException {
        Files.createDirectories(base.resolve("temp"));
        List<String> command = new ArrayList<>(List.of(java()));
        command.addAll(PROFILING_OPTIONS);
        command.addAll(jvmOptions);
        command.addAll(List.of("-Djava.io.tmpdir=" + base.resolve("temp"),
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-cp", classpath.toString(), JettyServer.class.getName(), Integer.toString(port), redisAddress));
        if (backendTimeout != null) command.add(backendTimeout);
        return start("jetty", command, base, port);
    }

    private static ServerProcess start(String name, List<String> command, Path directory, int port) throws IOException {
        Path log = directory.resolve("console.log");
        Process p = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        return new ServerProcess(name, p, port, log);
    }

    /** Waits until every path answers 200 to a GET with the client header. */
    void awaitReady(List<String> paths) throws InterruptedException {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        for (String path : paths) {
            while (true) {
                if (!process.isAlive()) throw new IllegalStateException(name + " exited with " + process.exitValue() + "; see " + log);
                if (System.nanoTime() > deadline) throw new IllegalStateException(name + " not serving " + path + " in " + START_TIMEOUT + "; see " + log);
                try {
                    HttpRequest get = HttpRequest.newBuilder(URI.create(url(path))).header(Scenario.HEADER, "ready")
                            .timeout(Duration.ofSeconds(10)).build();
                    if (http.send(get, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) break;
                } catch (IOException e) {
                    // not listening yet
                }
                Thread.sleep(250);
            }
        }
    }

    String url(String path) {
        return "http://127.0.0.1:" + port + path;
    }

    String name() {
        return name;
    }

    long pid() {
        return process.pid();
    }

    Path log() {
        return log;
    }

    /**
     * Decisions Sluice left to {@code on-backend-failure} so far, as its log tells them: one per line, plus the
     * similar events a throttled line says it did not log.
     */
    long failurePolicyDecisions() {
        try {
            long n = 0;
            for (String line : Files.readAllLines(log)) {
                if (!line.contains("per on-backend-failure")) continue;
                n++;
                Matcher m = NOT_LOGGED.matcher(line);
                if (m.find()) n += Long.parseLong(m.group(1));
            }
            return n;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static final Pattern NOT_LOGGED = Pattern.compile("\\((\\d+) similar events not logged\\)");

    /** User + system CPU time of the container's JVM so far, in nanoseconds. */
    long cpuNanos() {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"));
            // Fields after the command name, which is in parentheses and may hold spaces: state is field 3.
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime (fields 14, 15)
            return ticks * TimeUnit.SECONDS.toNanos(1) / CLOCK_TICKS_PER_SECOND;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        stop();
        try {
            Runtime.getRuntime().removeShutdownHook(killAtExit);
        } catch (IllegalStateException e) {
            // already exiting: the hook runs anyway
        }
    }

    private void stop() {
        if (!process.isAlive()) return;
        process.destroy();
        try {
            if (!process.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
