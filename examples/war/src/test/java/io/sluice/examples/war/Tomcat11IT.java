package io.sluice.examples.war;

/** Stock Apache Tomcat 11 (Servlet 6.1) from Maven Central, in its own process. */
class Tomcat11IT extends WarContract {
    Tomcat11IT() {
        super(Container.TOMCAT_11);
    }
}
