package io.sluice.examples.war;

import java.util.Map;

/** Stock Jetty 12 (jetty-home from Maven Central) deploying through its ee9 environment (Servlet 5.0, the API the filter compiles against). */
class JettyEe9IT extends WarContract {
    JettyEe9IT() {
        super("5.0", "jetty/" + System.getProperty("it.jetty.version"));
    }

    @Override
    Deployed deploy(Map<String, String> settings) {
        return StockContainers.jetty("jetty-ee9", StockContainers.property("it.jetty.home"), "ee9", settings);
    }
}
