package io.sluice.examples.war;

import io.sluice.testing.TestRedis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Stock Tomcat and Jetty distributions, unpacked by the build from Maven Central, each started as its own
 * process on a fresh base directory under {@code target/it} with the WAR copied in as {@code webapps/example.war}.
 * The distributions themselves are never changed: only their base directories are written.
 */
final class StockContainers {
    static final String CONTEXT = "/example";
    /** Small and quick to start: these JVMs serve a few dozen requests. */
    static final List<String> JVM_OPTIONS = List.of("-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

    private StockContainers() {
    }

    static Path property(String name) {
        String value = System.getProperty(name);
        if (value == null) throw new IllegalStateException("system property " + name + " is not set: run these tests with mvn -Pit verify");
        return Path.of(value);
    }

    /**
     * Tomcat as {@code catalina run} would start it: {@code CATALINA_HOME} the distribution, {@code CATALINA_BASE}
     * a copy of its {@code conf/} with the HTTP connector on a free loopback port and the shutdown port off.
     */
    static Deployed tomcat(String name, Path home, Map<String, String> environment) {
        Path base = freshDirectory(name);
        copyTree(home.resolve("conf"), base.resolve("conf"));
        for (String dir : List.of("logs", "temp", "work", "webapps")) createDirectories(base.resolve(dir));
        int port = TestRedis.freePort();
        Path serverXml = base.resolve("conf/server.xml");
        String stock = read(serverXml);
        String edited = stock.replace("<Server port=\"8005\"", "<Server port=\"-1\"")
                .replaceFirst("<Connector port=\"8080\" protocol=\"HTTP/1.1\"",
                        "<Connector port=\"" + port + "\" address=\"127.0.0.1\" protocol=\"HTTP/1.1\"");
        if (edited.equals(stock) || !edited.contains("port=\"" + port + "\"") || edited.contains("<Server port=\"8005\"")) {
            throw new IllegalStateException("unexpected stock server.xml in " + home);
        }
        write(serverXml, edited);
        copy(war(), base.resolve("webapps/example.war"));
        List<String> command = new ArrayList<>(List.of(java()));
        command.addAll(JVM_OPTIONS);
        // The same options bin/catalina.sh passes.
        command.addAll(List.of(
                "--add-opens=java.base/java.lang=ALL-UNNAMED", "--add-opens=java.base/java.io=ALL-UNNAMED",
                "--add-opens=java.base/java.util=ALL-UNNAMED", "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
                "--add-opens=java.rmi/sun.rmi.transport=ALL-UNNAMED",
                "-Djava.util.logging.manager=org.apache.juli.ClassLoaderLogManager",
                "-Djava.util.logging.config.file=" + base.resolve("conf/logging.properties"),
                "-Dcatalina.home=" + home, "-Dcatalina.base=" + base, "-Djava.io.tmpdir=" + base.resolve("temp"),
                // A port taken meanwhile ends the process (a clear failure) instead of leaving it up without a connector.
                "-Dorg.apache.catalina.startup.EXIT_ON_INIT_FAILURE=true",
                "-cp", home.resolve("bin/bootstrap.jar") + java.io.File.pathSeparator + home.resolve("bin/tomcat-juli.jar"),
                "org.apache.catalina.startup.Bootstrap", "start"));
        return ContainerProcess.start(name, command, base, environment, base.resolve("logs"),
                "http://127.0.0.1:" + port + CONTEXT, StockContainers::assertTomcatStoppedEveryThreadOfTheApplication);
    }

    /**
     * Jetty 12 from {@code jetty-home}: a {@code JETTY_BASE} made by {@code start.jar --add-modules=http,<env>-deploy},
     * so the one environment ({@code ee10} or {@code ee9}) deploys everything in {@code webapps/}.
     */
    static Deployed jetty(String name, Path home, String environment, Map<String, String> env) {
        Path base = freshDirectory(name);
        createDirectories(base.resolve("temp"));
        String startJar = home.resolve("start.jar").toString();
        ContainerProcess.run(List.of(java(), "-jar", startJar, "jetty.home=" + home, "jetty.base=" + base,
                "--add-modules=http," + environment + "-deploy"), base);
        copy(war(), base.resolve("webapps/example.war"));
        int port = TestRedis.freePort();
        List<String> command = new ArrayList<>(List.of(java()));
        command.addAll(JVM_OPTIONS);
        command.addAll(List.of("-Djava.io.tmpdir=" + base.resolve("temp"), "-jar", startJar,
                "jetty.home=" + home, "jetty.base=" + base, "jetty.http.host=127.0.0.1", "jetty.http.port=" + port));
        return ContainerProcess.start(name, command, base, env, null, "http://127.0.0.1:" + port + CONTEXT, logs -> { });
    }

    /**
     * Tomcat checks at undeploy for threads an application started and left running (its leak detection): the
     * filter's {@code destroy} must have stopped Sluice's scheduler and Redisson's event loops and timers.
     * (Netty's thread-locals on Tomcat's request threads are reported too; Tomcat renews those threads itself.)
     */
    private static void assertTomcatStoppedEveryThreadOfTheApplication(String logs) {
        org.assertj.core.api.Assertions.assertThat(logs)
                .as("Tomcat undeployed the application")
                .contains("Stopping service [Catalina]")
                .as("threads left running by the application")
                .doesNotContain("but has failed to stop it");
    }

    static Path war() {
        return property("it.war");
    }

    static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    static Path freshDirectory(String name) {
        Path dir = property("it.work").resolve(name);
        if (Files.exists(dir)) {
            io(() -> {
                try (Stream<Path> s = Files.walk(dir)) {
                    s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
                return null;
            });
        }
        return createDirectories(dir);
    }

    static void copyTree(Path from, Path to) {
        io(() -> {
            try (Stream<Path> s = Files.walk(from)) {
                for (Path p : (Iterable<Path>) s::iterator) {
                    Path target = to.resolve(from.relativize(p).toString());
                    if (Files.isDirectory(p)) createDirectories(target);
                    else copy(p, target);
                }
            }
            return null;
        });
    }

    static Path createDirectories(Path dir) {
        return io(() -> Files.createDirectories(dir));
    }

    static void copy(Path from, Path to) {
        io(() -> Files.copy(from, to, StandardCopyOption.REPLACE_EXISTING));
    }

    static String read(Path file) {
        return io(() -> Files.readString(file));
    }

    static void write(Path file, String content) {
        io(() -> Files.writeString(file, content));
    }

    private interface IoCall<T> {
        T call() throws IOException;
    }

    private static <T> T io(IoCall<T> call) {
        try {
            return call.call();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
