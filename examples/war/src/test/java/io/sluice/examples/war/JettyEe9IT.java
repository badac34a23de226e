package io.sluice.examples.war;

/** Stock Jetty 12 (jetty-home from Maven Central) deploying through its ee9 environment, in its own process. */
class JettyEe9IT extends WarContract {
    JettyEe9IT() {
        super(Container.JETTY_EE9);
    }
}
