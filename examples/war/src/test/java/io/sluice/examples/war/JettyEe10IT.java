package io.sluice.examples.war;

/** Stock Jetty 12 (jetty-home from Maven Central) deploying through its ee10 environment, in its own process. */
class JettyEe10IT extends WarContract {
    JettyEe10IT() {
        super(Container.JETTY_EE10);
    }
}
