package io.sluice.filter;

class UndertowPlansTest extends PlansHttpContract {
    UndertowPlansTest() {
        super(Containers.Kind.UNDERTOW);
    }
}
