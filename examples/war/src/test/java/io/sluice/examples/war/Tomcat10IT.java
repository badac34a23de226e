package io.sluice.examples.war;

import java.util.Map;

/** Stock Apache Tomcat 10.1 (Servlet 6.0) from Maven Central, in its own process. */
class Tomcat10IT extends WarContract {
    Tomcat10IT() {
        super("6.0", "Apache Tomcat/" + System.getProperty("it.tomcat10.version"));
    }

    @Override
    Deployed deploy(Map<String, String> settings) {
        return StockContainers.tomcat("tomcat-10.1", StockContainers.property("it.tomcat10.home"), settings);
    }
}
