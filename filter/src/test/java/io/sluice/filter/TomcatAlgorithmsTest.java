package io.sluice.filter;

class TomcatAlgorithmsTest extends AlgorithmsHttpContract {
    TomcatAlgorithmsTest() {
        super(Containers.Kind.TOMCAT);
    }
}
