package io.sluice.filter;

class JettyHttpTest extends HttpContract {
    JettyHttpTest() {
        super(Containers.Kind.JETTY);
    }
}
