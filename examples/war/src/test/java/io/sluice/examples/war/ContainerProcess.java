package io.sluice.examples.war;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static org.awaitility.Awaitility.await;

/**
 * A servlet container in its own OS process: output to a log file, ready once the WAR answers, stopped
 * (SIGTERM, then SIGKILL) on close and at the latest when the test JVM exits.
 */
final class ContainerProcess implements Deployed {
    static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private final String name;
    private final Process process;
    private final Path log;
    private final Path logDirectory;
    private final String baseUrl;
    private final Consumer<String> checkLogsAfterStop;
    private final Thread killAtExit;

    private ContainerProcess(String name, Process process, Path log, Path logDirectory, String baseUrl,
                             Consumer<String> checkLogsAfterStop) {
        this.name = name;
        this.process = process;
        this.log = log;
        this.logDirectory = logDirectory;
        this.baseUrl = baseUrl;
        this.checkLogsAfterStop = checkLogsAfterStop;
        this.killAtExit = new Thread(() -> kill(process), "stop " + name);
        Runtime.getRuntime().addShutdownHook(killAtExit);
    }

    /**
     * Runs {@code command} in {@code directory} and waits until {@code baseUrl + "/probe"} answers 200.
     * {@code logDirectory}, if not null, holds the container's own log files, reported with its console;
     * {@code checkLogsAfterStop} asserts what they say once {@link #close} has stopped the container.
     */
    static ContainerProcess start(String name, List<String> command, Path directory, Map<String, String> environment,
                                  Path logDirectory, String baseUrl, Consumer<String> checkLogsAfterStop) {
        Path log = directory.resolve("console.log");
        ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile())
                .redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().putAll(environment);
        ContainerProcess started;
        try {
            started = new ContainerProcess(name, builder.start(), log, logDirectory, baseUrl, checkLogsAfterStop);
        } catch (IOException e) {
            throw new UncheckedIOException("could not run " + command, e);
        }
        try {
            await(name + " serving " + baseUrl).atMost(START_TIMEOUT).pollInterval(Duration.ofMillis(250))
                    .until(started::answers);
            return started;
        } catch (RuntimeException | Error e) {
            String logs = started.logs();
            started.stop();
            throw new AssertionError(name + " did not start: " + e.getMessage() + "\n" + logs, e);
        }
    }

    /** Runs a short set-up command (such as Jetty's --add-modules) to completion; fails with its output. */
    static void run(List<String> command, Path directory) {
        try {
            Path out = Files.createTempFile(directory, "setup", ".log");
            Process p = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true)
                    .redirectOutput(out.toFile()).start();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                kill(p);
                throw new AssertionError("timed out: " + command + "\n" + Files.readString(out));
            }
            if (p.exitValue() != 0) throw new AssertionError("exit " + p.exitValue() + ": " + command + "\n" + Files.readString(out));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted: " + command, e);
        }
    }

    private boolean answers() {
        if (!process.isAlive()) throw new IllegalStateException(name + " exited with code " + process.exitValue());
        try {
            HttpRequest probe = HttpRequest.newBuilder(URI.create(baseUrl + "/probe")).timeout(Duration.ofSeconds(5)).build();
            return HTTP.send(probe, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The process started, and through it every process it started in turn (a start script's JVM). */
    ProcessHandle handle() {
        return process.toHandle();
    }

    @Override
    public String baseUrl() {
        return baseUrl;
    }

    @Override
    public String logs() {
        return logs(300);
    }

    /** Every line the container wrote so far, for checks of what it logged. */
    String wholeLog() {
        return logs(Integer.MAX_VALUE);
    }

    /** The last {@code lines} lines of each of the container's log files. */
    private String logs(int lines) {
        StringBuilder out = new StringBuilder();
        List<Path> files = new ArrayList<>(List.of(log));
        if (logDirectory != null && Files.isDirectory(logDirectory)) {
            try (Stream<Path> s = Files.list(logDirectory)) {
                s.sorted().forEach(files::add);
            } catch (IOException e) {
                out.append("(could not list ").append(logDirectory).append(": ").append(e).append(")\n");
            }
        }
        for (Path f : files) {
            out.append("----- ").append(name).append(": ").append(f).append('\n');
            try {
                List<String> all = Files.readAllLines(f, StandardCharsets.UTF_8);
                all.subList(Math.max(0, all.size() - lines), all.size()).forEach(l -> out.append(l).append('\n'));
            } catch (IOException e) {
                out.append("(unreadable: ").append(e).append(")\n");
            }
        }
        return out.toString();
    }

    /** Stops the container, then checks what it logged while stopping. */
    @Override
    public void close() {
        stop();
        checkLogsAfterStop.accept(logs());
    }

    private void stop() {
        kill(process);
        try {
            Runtime.getRuntime().removeShutdownHook(killAtExit);
        } catch (IllegalStateException e) {
            // already exiting: the hook runs anyway
        }
    }

    /**
     * A graceful stop first (the container's own shutdown hook), then a hard one. A start script may exit at
     * once on the signal while the server it started is still stopping: every process of the tree is awaited.
     */
    private static void kill(Process process) {
        List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
        tree.add(process.toHandle());
        if (tree.stream().noneMatch(ProcessHandle::isAlive)) return;
        tree.forEach(ProcessHandle::destroy);
        CompletableFuture<?> exited = CompletableFuture.allOf(tree.stream().map(ProcessHandle::onExit)
                .toArray(CompletableFuture[]::new));
        try {
            exited.get(30, TimeUnit.SECONDS);
        } catch (TimeoutException | ExecutionException e) {
            tree.forEach(ProcessHandle::destroyForcibly);
            exited.completeOnTimeout(null, 10, TimeUnit.SECONDS).join();
        } catch (InterruptedException e) {
            tree.forEach(ProcessHandle::destroyForcibly);
            Thread.currentThread().interrupt();
        }
    }
}
