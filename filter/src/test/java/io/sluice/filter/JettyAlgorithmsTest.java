package io.sluice.filter;

class JettyAlgorithmsTest extends AlgorithmsHttpContract {
    JettyAlgorithmsTest() {
        super(Containers.Kind.JETTY);
    }
}
