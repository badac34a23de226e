package io.sluice.examples.war;

/** Stock Open Liberty (features cdi-4.0, servlet-6.0, restfulWS-3.1, transaction-2.0) from Maven Central, in its own process. */
class OpenLibertyIT extends AppServerContract {
    OpenLibertyIT() {
        super("6.0", "WebSphere Liberty", env -> AppServers.openLiberty(StockContainers.property("it.openliberty.home"), env));
    }
}
