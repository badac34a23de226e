package io.sluice.filter;

class UndertowHttpTest extends HttpContract {
    UndertowHttpTest() {
        super(Containers.Kind.UNDERTOW);
    }
}
