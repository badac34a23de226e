package io.sluice.filter;

class TomcatOutcomeTest extends OutcomeHttpContract {
    TomcatOutcomeTest() {
        super(Containers.Kind.TOMCAT);
    }
}
