package io.sluice.filter;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One app server of {@code ManyAppServersIT}, run in its own JVM: embedded Jetty 12 with the filter and the
 * test servlets ({@link Containers#jetty}). Arguments: the file to write the bound port to, then filter
 * init-params as {@code name=value}. Runs until the test kills the process.
 */
public final class AppServerMain {
    private AppServerMain() {
    }

    public static void main(String[] args) throws Exception {
        Path portFile = Path.of(args[0]);
        Map<String, String> initParams = new LinkedHashMap<>();
        for (int i = 1; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            initParams.put(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        Containers.Running jetty = Containers.jetty(initParams);
        // Written whole, then renamed: the test never reads half a port.
        Path tmp = portFile.resolveSibling(portFile.getFileName() + ".tmp");
        Files.writeString(tmp, Integer.toString(jetty.port()));
        Files.move(tmp, portFile, StandardCopyOption.ATOMIC_MOVE);
        Thread.currentThread().join();
    }
}
