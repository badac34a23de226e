package io.sluice.filter;

class UndertowAlgorithmsTest extends AlgorithmsHttpContract {
    UndertowAlgorithmsTest() {
        super(Containers.Kind.UNDERTOW);
    }
}
