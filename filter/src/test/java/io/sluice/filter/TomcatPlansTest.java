package io.sluice.filter;

class TomcatPlansTest extends PlansHttpContract {
    TomcatPlansTest() {
        super(Containers.Kind.TOMCAT);
    }
}
