package io.sluice.examples.war;

/** Stock Apache Tomcat 10.1 (Servlet 6.0) from Maven Central, in its own process. */
class Tomcat10IT extends WarContract {
    Tomcat10IT() {
        super(Container.TOMCAT_10_1);
    }
}
