package io.sluice.filter;

class JettyPlansTest extends PlansHttpContract {
    JettyPlansTest() {
        super(Containers.Kind.JETTY);
    }
}
