package io.sluice.examples.war;

/** Stock Payara Micro from Maven Central, clustering off, in its own process. */
class PayaraMicroIT extends AppServerContract {
    PayaraMicroIT() {
        super("6.0", "Payara Micro", env -> AppServers.payaraMicro(StockContainers.property("it.payara-micro.jar"), env));
    }
}
