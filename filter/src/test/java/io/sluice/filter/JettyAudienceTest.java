package io.sluice.filter;

class JettyAudienceTest extends AudienceHttpContract {
    JettyAudienceTest() {
        super(Containers.Kind.JETTY);
    }
}
