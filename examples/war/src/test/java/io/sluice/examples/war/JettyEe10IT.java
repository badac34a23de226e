package io.sluice.examples.war;

import java.util.Map;

/** Stock Jetty 12 (jetty-home from Maven Central) deploying through its ee10 environment (Servlet 6.0). */
class JettyEe10IT extends WarContract {
    JettyEe10IT() {
        super("6.0", "jetty/" + System.getProperty("it.jetty.version"));
    }

    @Override
    Deployed deploy(Map<String, String> settings) {
        return StockContainers.jetty("jetty-ee10", StockContainers.property("it.jetty.home"), "ee10", settings);
    }
}
