package io.sluice.filter;

class UndertowAudienceTest extends AudienceHttpContract {
    UndertowAudienceTest() {
        super(Containers.Kind.UNDERTOW);
    }
}
