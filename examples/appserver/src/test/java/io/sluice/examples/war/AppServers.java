package io.sluice.examples.war;

import io.sluice.testing.TestRedis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Stock application servers (unpacked by the build from Maven Central), each started as its own process on a
 * fresh directory under {@code target/it}, bound to 127.0.0.1, with three WARs: {@code example.war} (the WAR
 * under test), {@code broken.war} (the same with rule {@code generations} missing from its rules, so its
 * deployment must fail naming it) and {@code unreachable.war} (the same with a Redis no one listens on, so its
 * requests are decided per {@code on-backend-failure}, which Sluice logs). The distributions are never changed.
 */
final class AppServers {
    static final String BROKEN = "broken";
    static final String UNREACHABLE = "unreachable";
    /** The rule {@code broken.war}'s rules lack. */
    static final String MISSING_RULE = "generations";
    private static final String RULES_ENTRY = "WEB-INF/classes/sluice.properties";
    private static final String MICROPROFILE_CONFIG_ENTRY = "WEB-INF/classes/META-INF/microprofile-config.properties";
    /** Ports WildFly's standard configuration binds, before its port offset. */
    private static final List<Integer> WILDFLY_PORTS = List.of(8080, 8443, 9990, 9993, 4712, 4713, 8009);
    private static final int MIN_PORT_OFFSET = 1_000;
    private static final int MAX_PORT_OFFSET = 10_000;

    private AppServers() {
    }

    /** WildFly's {@code standalone.sh} on a copy of its {@code standalone/} directory, every port shifted by a free offset. */
    static Deployed wildFly(Path home, Map<String, String> environment) {
        Path base = StockContainers.freshDirectory("wildfly");
        Path server = base.resolve("standalone");
        StockContainers.copyTree(home.resolve("standalone/configuration"), server.resolve("configuration"));
        Path deployments = StockContainers.createDirectories(server.resolve("deployments"));
        deployWars(base, deployments);
        int offset = freeOffset(WILDFLY_PORTS);
        Map<String, String> env = new HashMap<>(environment);
        env.put("JAVA_HOME", System.getProperty("java.home"));
        env.put("JAVA_OPTS", String.join(" ", StockContainers.JVM_OPTIONS) + " -Djava.net.preferIPv4Stack=true");
        List<String> command = List.of(home.resolve("bin/standalone.sh").toString(),
                "-Djboss.server.base.dir=" + server, "-b", "127.0.0.1", "-bmanagement", "127.0.0.1",
                "-Djboss.socket.binding.port-offset=" + offset);
        return ContainerProcess.start("wildfly", command, base, env, server.resolve("log"),
                "http://127.0.0.1:" + (8080 + offset) + StockContainers.CONTEXT,
                stopped("WFLYSRV0028: Stopped deployment example.war"));
    }

    /** Payara Micro as its own executable jar: clustering (Hazelcast) off, the HTTP listener on 127.0.0.1 only. */
    static Deployed payaraMicro(Path jar, Map<String, String> environment) {
        Path base = StockContainers.freshDirectory("payara-micro");
        Path apps = StockContainers.createDirectories(base.resolve("apps"));
        deployWars(base, apps);
        int port = TestRedis.freePort();
        Path preBoot = base.resolve("pre-boot.asadmin");
        StockContainers.write(preBoot, "set configs.config.server-config.network-config.network-listeners"
                + ".network-listener.http-listener.address=127.0.0.1\n");
        List<String> command = new ArrayList<>(List.of(StockContainers.java()));
        command.addAll(StockContainers.JVM_OPTIONS);
        command.addAll(List.of("-Djava.io.tmpdir=" + StockContainers.createDirectories(base.resolve("temp")),
                "-jar", jar.toString(), "--nocluster", "--port", Integer.toString(port),
                "--rootdir", base.resolve("root").toString(), "--prebootcommandfile", preBoot.toString()));
        for (String war : List.of("example", BROKEN, UNREACHABLE)) {
            command.addAll(List.of("--deploy", apps.resolve(war + ".war").toString()));
        }
        return ContainerProcess.start("payara-micro", command, base, environment, null,
                "http://127.0.0.1:" + port + StockContainers.CONTEXT, stopped(null));
    }

    /** Open Liberty's {@code server run} with a user directory of its own: the WARs in {@code dropins/}. */
    static Deployed openLiberty(Path home, Map<String, String> environment) {
        Path base = StockContainers.freshDirectory("openliberty");
        Path server = StockContainers.createDirectories(base.resolve("usr/servers/sluice"));
        deployWars(base, StockContainers.createDirectories(server.resolve("dropins")));
        int port = TestRedis.freePort();
        StockContainers.write(server.resolve("server.xml"), """
                <server description="Sluice tests">
                  <featureManager>
                    <feature>cdi-4.0</feature>
                    <feature>servlet-6.0</feature>
                    <feature>restfulWS-3.1</feature>
                    <feature>transaction-2.0</feature>
                  </featureManager>
                  <httpEndpoint id="defaultHttpEndpoint" host="127.0.0.1" httpPort="%d" httpsPort="-1"/>
                  <applicationMonitor updateTrigger="disabled"/>
                </server>
                """.formatted(port));
        StockContainers.write(server.resolve("jvm.options"), String.join("\n", StockContainers.JVM_OPTIONS) + "\n");
        Map<String, String> env = new HashMap<>(environment);
        env.put("JAVA_HOME", System.getProperty("java.home"));
        env.put("WLP_USER_DIR", base.resolve("usr").toString());
        return ContainerProcess.start("openliberty", List.of(home.resolve("bin/server").toString(), "run", "sluice"),
                base, env, server.resolve("logs"), "http://127.0.0.1:" + port + StockContainers.CONTEXT,
                stopped("CWWKZ0009I: The application example has stopped successfully."));
    }

    /**
     * After the server stopped: the application said it was undeployed with its engine withdrawn (closed), the
     * server said so too ({@code serverLine}, if it has one), and nothing of Sluice's or Redisson's failed.
     */
    private static Consumer<String> stopped(String serverLine) {
        return logs -> {
            assertThat(logs).as("the example application was undeployed and its engine closed")
                    .contains("sluice-example-appserver undeployed: engine withdrawn=true");
            if (serverLine != null) assertThat(logs).as("the server undeployed the example").contains(serverLine);
            List<String> failures = logs.lines()
                    .filter(l -> l.contains("SEVERE") || l.contains("ERROR"))
                    .filter(l -> l.contains("io.sluice") || l.contains("redisson") || l.contains("netty"))
                    .filter(l -> !l.contains("names unknown rule '" + MISSING_RULE + "'"))
                    .collect(Collectors.toList());
            assertThat(failures).as("errors of Sluice, Redisson or Netty in the log").isEmpty();
        };
    }

    /** Copies the WAR under test and writes its two variants into {@code directory}. */
    private static void deployWars(Path work, Path directory) {
        Path war = StockContainers.war();
        StockContainers.copy(war, directory.resolve("example.war"));
        Path broken = work.resolve(BROKEN + ".war");
        StockContainers.copy(war, broken);
        editRules(broken, rules -> rules.lines().filter(l -> !l.startsWith("sluice.rules." + MISSING_RULE + "."))
                .collect(Collectors.joining("\n", "", "\n")));
        Path unreachable = work.resolve(UNREACHABLE + ".war");
        StockContainers.copy(war, unreachable);
        int deadPort = TestRedis.freePort();
        editRules(unreachable, rules -> rules.replaceFirst("(?m)^sluice\\.redis\\.address=.*$",
                "sluice.redis.address=redis://127.0.0.1:" + deadPort).replaceFirst("(?m)^sluice\\.backend-timeout=.*$",
                "sluice.backend-timeout=500ms"));
        // On a server with MicroProfile Config (WildFly, Payara) the deployment's environment variable
        // SLUICE_REDIS_ADDRESS is sluice.redis.address too, over the rules file: the application's own source at a
        // higher ordinal than the environment's (300) names the dead Redis there.
        addEntry(unreachable, MICROPROFILE_CONFIG_ENTRY, "config_ordinal=500\nsluice.redis.address=redis://127.0.0.1:"
                + deadPort + "\n");
        // Copied in last, whole: a server scanning the directory never sees half a file.
        StockContainers.copy(broken, directory.resolve(BROKEN + ".war"));
        StockContainers.copy(unreachable, directory.resolve(UNREACHABLE + ".war"));
    }

    private static void editRules(Path war, UnaryOperator<String> edit) {
        try (FileSystem zip = FileSystems.newFileSystem(URI.create("jar:" + war.toUri()), Map.of())) {
            Path rules = zip.getPath(RULES_ENTRY);
            String before = Files.readString(rules);
            String after = edit.apply(before);
            if (after.equals(before)) throw new IllegalStateException("unexpected rules in " + war + ":\n" + before);
            Files.writeString(rules, after);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void addEntry(Path war, String entry, String content) {
        try (FileSystem zip = FileSystems.newFileSystem(URI.create("jar:" + war.toUri()), Map.of())) {
            Path file = zip.getPath(entry);
            Files.createDirectories(file.getParent());
            Files.writeString(file, content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A port offset under which every one of {@code ports} is free on loopback now. Shifted ports stay below
     * 20000: under the ephemeral range (where a client connection could take one while the server starts) and
     * under the ports {@link TestRedis#freePort()} hands out.
     */
    private static int freeOffset(List<Integer> ports) {
        for (int attempt = 0; attempt < 100; attempt++) {
            int offset = ThreadLocalRandom.current().nextInt(MIN_PORT_OFFSET, MAX_PORT_OFFSET);
            if (ports.stream().allMatch(p -> free(p + offset))) return offset;
        }
        throw new IllegalStateException("no free port offset for " + ports);
    }

    private static boolean free(int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
