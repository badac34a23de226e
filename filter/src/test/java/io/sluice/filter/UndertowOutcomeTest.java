package io.sluice.filter;

class UndertowOutcomeTest extends OutcomeHttpContract {
    UndertowOutcomeTest() {
        super(Containers.Kind.UNDERTOW);
    }
}
