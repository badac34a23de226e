package io.sluice.examples.war;

import java.util.Map;

/** Stock Apache Tomcat 10.1 (Servlet 6.0) from Maven Central, in its own process. */
class Tomcat10IT extends WarContract {
    @Override
    Deployed deploy(Map<String, String> settings) {
        return StockContainers.tomcat("tomcat-10.1", StockContainers.property("it.tomcat10.home"), settings);
    }

    @Override
    String servletVersion() {
        return "6.0";
    }

    @Override
    String serverInfo() {
        return "Apache Tomcat/" + System.getProperty("it.tomcat10.version");
    }

    @Override
    void assertStoppedCleanly(Deployed stopped) {
        StockContainers.assertTomcatStoppedEveryThreadOfTheApplication(stopped);
    }
}
