package io.sluice.benchmarks.wrk;

import com.sun.tools.attach.VirtualMachine;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * async-profiler ({@code tools.profiler:async-profiler}, whose jar carries the native library) loaded into a
 * running container JVM through the JDK's attach API, as its {@code asprof} launcher does: CPU samples of every
 * thread, written as an HTML flame graph and as collapsed stacks, from which {@link #breakdown} tells where
 * the CPU of a request goes.
 */
final class Profiler {
    /** One sample per millisecond of CPU time. */
    private static final String INTERVAL = "1ms";

    /** Where a CPU sample is spent, by the innermost frame of a known library (else by thread). */
    enum Part {
        CONTAINER("container (Tomcat/Jetty, servlet, JDK I/O)"),
        FILTER("rate-limit filter and engine (Sluice, or the hand-written filter)"),
        CLIENT("Redis client (Redisson, Netty)"),
        JVM("JVM (GC, JIT compiler, VM threads)"),
        OTHER("other");

        final String label;

        Part(String label) {
            this.label = label;
        }
    }

    /**
     * Frames whose inclusive share of the samples tells the known costs of a decision made on the request thread
     * apart (label, then a substring of the frame): the wait and the wake-up, the write to Redis and the read.
     */
    static final List<Map.Entry<String, String>> HOT_SPOTS = List.of(
            Map.entry("request thread parked for the answer (LockSupport.park)", "LockSupport.park"),
            Map.entry("waking the request thread (LockSupport.unpark)", "LockSupport.unpark"),
            Map.entry("command written from a request thread (writeAndFlush)", "writeAndFlush"),
            Map.entry("  of which waking Netty's selector", "SelectedSelectionKeySetSelector.wakeup"),
            Map.entry("Netty socket write (NioSocketChannel.doWrite)", "NioSocketChannel.doWrite"),
            Map.entry("Netty waiting for events (select)", "SelectedSelectionKeySetSelector.select"),
            Map.entry("Redisson decoding the answer (CommandDecoder)", "CommandDecoder"),
            Map.entry("Netty leak detector records (ResourceLeakDetector)", "ResourceLeakDetector"),
            Map.entry("Sluice request view (ServletRequestView)", "io.sluice.servlet.ServletRequestView"),
            Map.entry("Sluice key hashing (KeyResolver)", "io.sluice.key.KeyResolver"),
            Map.entry("Sluice response headers (ResponseWriter)", "io.sluice.filter.ResponseWriter"),
            Map.entry("Sluice.admit (engine, to the Redisson call)", "io.sluice.Sluice.admit"),
            Map.entry("the servlet (Hello.doGet)", "io.sluice.benchmarks.Hello.doGet"));

    private final Path library;

    Profiler(Path library) {
        this.library = library;
    }

    /** The native library for this machine inside the unpacked async-profiler jar, or null if there is none. */
    static Path find(Path unpackedJar) {
        String arch = System.getProperty("os.arch").equals("aarch64") ? "linux-arm64" : "linux-x64";
        Path lib = unpackedJar.resolve(arch).resolve("libasyncProfiler.so");
        return System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux") && Files.isRegularFile(lib) ? lib : null;
    }

    void start(long pid) {
        command(pid, "start,event=cpu,interval=" + INTERVAL + ",threads");
    }

    /** Stops profiling; writes the collapsed stacks and the flame graph of everything since {@link #start}. */
    void stop(long pid, Path collapsed, Path flameGraph, String title) {
        command(pid, "dump,collapsed,file=" + collapsed);
        command(pid, "stop,flamegraph,title=" + title.replace(' ', '_').replace(',', '_') + ",file=" + flameGraph);
    }

    private void command(long pid, String options) {
        try {
            VirtualMachine vm = VirtualMachine.attach(Long.toString(pid));
            try {
                vm.loadAgentPath(library.toString(), options);
            } finally {
                vm.detach();
            }
        } catch (Exception e) {
            throw new IllegalStateException("async-profiler " + options + " in process " + pid + ": " + e, e);
        }
    }

    /** Shares of the samples per part (they add up to 1), from async-profiler's collapsed stacks with threads. */
    static Map<Part, Double> breakdown(Path collapsed) {
        Map<Part, Long> samples = new EnumMap<>(Part.class);
        long total = 0;
        try {
            for (String line : Files.readAllLines(collapsed)) {
                int space = line.lastIndexOf(' ');
                if (space < 0) continue;
                long n = Long.parseLong(line.substring(space + 1).trim());
                samples.merge(part(line.substring(0, space).split(";")), n, Long::sum);
                total += n;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<Part, Double> shares = new EnumMap<>(Part.class);
        for (Part p : Part.values()) shares.put(p, total == 0 ? 0 : samples.getOrDefault(p, 0L) / (double) total);
        return shares;
    }

    /** Inclusive share of the samples of each {@link #HOT_SPOTS} frame. */
    static Map<String, Double> hotSpots(Path collapsed) {
        Map<String, Long> samples = new LinkedHashMap<>();
        long total = 0;
        try {
            for (String line : Files.readAllLines(collapsed)) {
                int space = line.lastIndexOf(' ');
                if (space < 0) continue;
                long n = Long.parseLong(line.substring(space + 1).trim());
                String stack = line.substring(0, space).replace('/', '.');
                total += n;
                for (Map.Entry<String, String> h : HOT_SPOTS) {
                    if (stack.contains(h.getValue())) samples.merge(h.getKey(), n, Long::sum);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, Double> shares = new LinkedHashMap<>();
        for (Map.Entry<String, String> h : HOT_SPOTS) shares.put(h.getKey(), total == 0 ? 0 : samples.getOrDefault(h.getKey(), 0L) / (double) total);
        return shares;
    }

    /** The part of one stack: its innermost frame of a known library; a stack with none, by its thread. */
    static Part part(String[] frames) {
        for (int i = frames.length - 1; i >= 1; i--) {
            Part p = library(frames[i].replace('/', '.'));
            if (p != null) return p;
        }
        return thread(frames[0]);
    }

    private static final List<String> CONTAINER_PACKAGES = List.of("org.apache.", "org.eclipse.jetty.", "jakarta.servlet.");
    private static final List<String> CLIENT_PACKAGES = List.of("org.redisson.", "io.netty.", "reactor.", "io.reactivex.",
            "org.jboss.marshalling.", "com.esotericsoftware.");

    private static Part library(String frame) {
        // The benchmark's servlet is the application, the hand-written filter is a filter: test them first.
        if (frame.startsWith("io.sluice.benchmarks.Hello")) return Part.CONTAINER;
        if (frame.startsWith("io.sluice.")) return Part.FILTER;
        for (String p : CLIENT_PACKAGES) if (frame.startsWith(p)) return Part.CLIENT;
        for (String p : CONTAINER_PACKAGES) if (frame.startsWith(p)) return Part.CONTAINER;
        return null;
    }

    private static Part thread(String frame) {
        String t = frame.replaceFirst("^\\[", "").toLowerCase(Locale.ROOT);
        if (t.startsWith("gc ") || t.startsWith("g1 ") || t.contains("compilerthre") || t.startsWith("vm ")
                || t.startsWith("sweeper") || t.startsWith("service thread") || t.startsWith("signal dispatcher")) {
            return Part.JVM;
        }
        if (t.startsWith("redisson") || t.contains("netty")) return Part.CLIENT;
        if (t.startsWith("http-nio") || t.startsWith("qtp") || t.startsWith("catalina")) return Part.CONTAINER;
        if (t.startsWith("sluice")) return Part.FILTER;
        return Part.OTHER;
    }
}
