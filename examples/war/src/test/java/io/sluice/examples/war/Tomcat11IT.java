package io.sluice.examples.war;

import java.util.Map;

/** Stock Apache Tomcat 11 (Servlet 6.1) from Maven Central, in its own process. */
class Tomcat11IT extends WarContract {
    Tomcat11IT() {
        super("6.1", "Apache Tomcat/" + System.getProperty("it.tomcat11.version"));
    }

    @Override
    Deployed deploy(Map<String, String> settings) {
        return StockContainers.tomcat("tomcat-11", StockContainers.property("it.tomcat11.home"), settings);
    }
}
