package io.sluice.examples.war;

import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The parts of a {@code web.xml} an embedded container needs to deploy it: listeners, filters, servlets and
 * their mappings. Enough for the example WAR; not a full descriptor model.
 */
record WebXml(List<String> listeners, List<Component> filters, List<Mapping> filterMappings,
              List<Component> servlets, List<Mapping> servletMappings) {

    record Component(String name, String className, boolean asyncSupported, Map<String, String> initParams) {
    }

    /** A mapping of a filter or servlet by name; {@code dispatchers} empty means REQUEST. */
    record Mapping(String name, List<String> urlPatterns, List<String> dispatchers) {
    }

    /** This descriptor with the named filter's {@code async-supported} set to {@code supported}. */
    WebXml withFilterAsyncSupported(String filterName, boolean supported) {
        List<Component> changed = new ArrayList<>();
        for (Component f : filters) {
            changed.add(f.name().equals(filterName) ? new Component(f.name(), f.className(), supported, f.initParams()) : f);
        }
        return new WebXml(listeners, changed, filterMappings, servlets, servletMappings);
    }

    static WebXml read(Path file) {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setNamespaceAware(true);
            factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            Element root = factory.newDocumentBuilder().parse(file.toFile()).getDocumentElement();
            List<String> listeners = new ArrayList<>();
            for (Element l : children(root, "listener")) listeners.add(text(l, "listener-class"));
            return new WebXml(listeners, components(root, "filter", "filter-class"), mappings(root, "filter-mapping", "filter-name"),
                    components(root, "servlet", "servlet-class"), mappings(root, "servlet-mapping", "servlet-name"));
        } catch (Exception e) {
            throw new IllegalStateException("unreadable web.xml " + file, e);
        }
    }

    private static List<Component> components(Element root, String tag, String classTag) {
        List<Component> out = new ArrayList<>();
        for (Element e : children(root, tag)) {
            Map<String, String> params = new LinkedHashMap<>();
            for (Element p : children(e, "init-param")) params.put(text(p, "param-name"), text(p, "param-value"));
            out.add(new Component(text(e, tag + "-name"), text(e, classTag), "true".equals(text(e, "async-supported")), params));
        }
        return out;
    }

    private static List<Mapping> mappings(Element root, String tag, String nameTag) {
        List<Mapping> out = new ArrayList<>();
        for (Element e : children(root, tag)) {
            List<String> patterns = new ArrayList<>();
            for (Element p : children(e, "url-pattern")) patterns.add(p.getTextContent().trim());
            List<String> dispatchers = new ArrayList<>();
            for (Element d : children(e, "dispatcher")) dispatchers.add(d.getTextContent().trim());
            out.add(new Mapping(text(e, nameTag), patterns, dispatchers));
        }
        return out;
    }

    private static List<Element> children(Element parent, String localName) {
        List<Element> out = new ArrayList<>();
        NodeList nodes = parent.getChildNodes();
        for (int i = 0; i < nodes.getLength(); i++) {
            Node n = nodes.item(i);
            if (n instanceof Element e && localName.equals(e.getLocalName())) out.add(e);
        }
        return out;
    }

    private static String text(Element parent, String localName) {
        List<Element> found = children(parent, localName);
        return found.isEmpty() ? null : found.get(0).getTextContent().trim();
    }
}
