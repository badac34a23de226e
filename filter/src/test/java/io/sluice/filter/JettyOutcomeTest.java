package io.sluice.filter;

class JettyOutcomeTest extends OutcomeHttpContract {
    JettyOutcomeTest() {
        super(Containers.Kind.JETTY);
    }
}
