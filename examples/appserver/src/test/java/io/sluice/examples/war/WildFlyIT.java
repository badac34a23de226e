package io.sluice.examples.war;

/** Stock WildFly (standalone, its default configuration) from Maven Central, in its own process. */
class WildFlyIT extends AppServerContract {
    WildFlyIT() {
        super("6.0", "WildFly", env -> AppServers.wildFly(StockContainers.property("it.wildfly.home"), env));
    }
}
