package org.panamaverbs.bench.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.panamaverbs.bench.JsonText;
import org.panamaverbs.verbs.CapabilityVerdict;
import org.panamaverbs.verbs.DeviceAttributes;
import org.panamaverbs.verbs.GidEntry;
import org.panamaverbs.verbs.GidType;
import org.panamaverbs.verbs.PortAttributes;
import org.panamaverbs.verbs.RdmaCore;

/**
 * The device report's two forms, text for people and one JSON document for scripts, made from the same
 * field lists (named as {@code ibv_devinfo -v} names them) so that they cannot disagree.
 */
final class ReportFormat {
    private ReportFormat() {
    }

    /** Identity fields: vendor, part, hardware and firmware versions. */
    static Map<String, Object> identity(DeviceFacts facts) {
        DeviceAttributes a = facts.attributes();
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("node_guid", guid(facts.device().guid()));
        fields.put("transport", facts.device().transport().name());
        fields.put("vendor_id", hex(a.vendorId()));
        fields.put("vendor_part_id", a.vendorPartId());
        fields.put("hw_ver", hex(a.hardwareVersion()));
        fields.put("fw_ver", a.firmwareVersion());
        fields.put("phys_port_cnt", a.physicalPortCount());
        return fields;
    }

    /** The limits of {@code ibv_query_device} this library's callers size things by. */
    static Map<String, Object> limits(DeviceAttributes a) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("max_qp", a.maxQp());
        fields.put("max_qp_wr", a.maxQpWr());
        fields.put("max_sge", a.maxSge());
        fields.put("max_sge_rd", a.maxSgeRd());
        fields.put("max_cq", a.maxCq());
        fields.put("max_cqe", a.maxCqe());
        fields.put("max_mr", a.maxMr());
        fields.put("max_mr_size", "0x" + Long.toUnsignedString(a.maxMrSize(), 16));
        fields.put("max_pd", a.maxPd());
        fields.put("max_qp_rd_atom", a.maxQpRdAtom());
        fields.put("max_qp_init_rd_atom", a.maxQpInitRdAtom());
        fields.put("max_srq", a.maxSrq());
        fields.put("max_srq_wr", a.maxSrqWr());
        fields.put("max_srq_sge", a.maxSrqSge());
        fields.put("max_ah", a.maxAh());
        fields.put("max_mcast_grp", a.maxMcastGrp());
        fields.put("max_mcast_qp_attach", a.maxMcastQpAttach());
        fields.put("max_pkeys", a.maxPkeys());
        fields.put("atomic_cap", a.atomicCapability().name());
        fields.put("page_size_cap", "0x" + Long.toUnsignedString(a.pageSizeCap(), 16));
        fields.put("device_cap_flags", String.format("0x%08x", a.deviceCapFlags()));
        return fields;
    }

    /** A port's state, link and sizes. */
    static Map<String, Object> port(PortAttributes p) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("state", p.state().name());
        fields.put("link_layer", p.linkLayer().name());
        fields.put("max_mtu", p.maxMtu().bytes());
        fields.put("active_mtu", p.activeMtu().bytes());
        fields.put("max_msg_sz", "0x" + Long.toHexString(p.maxMessageSize()));
        fields.put("gid_tbl_len", p.gidTableLength());
        fields.put("port_cap_flags", String.format("0x%08x", p.portCapFlags()));
        return fields;
    }

    /** {@code IB/RoCE v1}, {@code RoCE v2}, as {@code ibv_devinfo -v} names GID types. */
    static String gidType(GidType type) {
        return switch (type) {
            case IB -> "IB";
            case ROCE_V1 -> "IB/RoCE v1";
            case ROCE_V2 -> "RoCE v2";
            default -> type.name();
        };
    }

    /** The verdict's status as the report shows it: allowed, limited, refused, absent. */
    static String status(CapabilityVerdict verdict) {
        return verdict.status().name().toLowerCase(Locale.ROOT);
    }

    // ---------------------------------------------------------------------------------------------
    // text

    /** {@code library}: the rdma-core the report ran on, first line, with one more line per fallback it takes. */
    static String text(RdmaCore library, List<DeviceFacts> devices) {
        StringBuilder out = new StringBuilder();
        out.append("rdma-core ").append(library.version() == null ? "of unknown version" : library.version())
                .append(" (").append(library.libibverbs() == null ? "libibverbs.so.1" : library.libibverbs()).append(")\n");
        for (String fallback : library.fallbacks()) {
            out.append("  fallback: ").append(fallback).append('\n');
        }
        for (DeviceFacts facts : devices) {
            out.append('\n');
            out.append("device ").append(facts.device().name()).append('\n');
            out.append("  ").append(joined(identity(facts))).append('\n');
            out.append("  limits: ").append(joined(limits(facts.attributes()))).append('\n');
            for (DeviceFacts.PortFacts port : facts.ports()) {
                out.append("  port ").append(port.port()).append(": ").append(joined(port(port.attributes()))).append('\n');
                for (GidEntry gid : port.gids()) {
                    out.append(String.format("    GID[%3d] %s, %s%n", gid.index(), gid.gid(), gidType(gid.type())));
                }
            }
            out.append("  profile: ").append(facts.profile().describe().strip().indent(2).stripLeading());
            out.append("  capabilities:\n");
            for (CapabilityVerdict verdict : facts.capabilities()) {
                boolean refusalOnly = verdict.detail().isEmpty() && verdict.status() == CapabilityVerdict.Status.REFUSED;
                out.append(String.format("    %-42s %-8s %s", verdict.capability().label(), status(verdict),
                        refusalOnly ? verdict.refusal() : verdict.detail()).stripTrailing()).append('\n');
                if (verdict.refusal() != null && !refusalOnly) {
                    out.append(String.format("    %-42s %-8s %s%n", "", "", (verdict.status() == CapabilityVerdict.Status.LIMITED
                            ? "past it: " : "") + verdict.refusal()));
                }
            }
        }
        return out.toString();
    }

    private static String joined(Map<String, Object> fields) {
        List<String> parts = new ArrayList<>();
        fields.forEach((name, value) -> parts.add(name + " " + value));
        return String.join(", ", parts);
    }

    // ---------------------------------------------------------------------------------------------
    // JSON

    static String json(RdmaCore library, List<DeviceFacts> devices) {
        List<Object> list = new ArrayList<>();
        for (DeviceFacts facts : devices) {
            Map<String, Object> device = new LinkedHashMap<>();
            device.put("name", facts.device().name());
            device.putAll(identity(facts));
            device.put("limits", limits(facts.attributes()));
            List<Object> ports = new ArrayList<>();
            for (DeviceFacts.PortFacts port : facts.ports()) {
                Map<String, Object> fields = new LinkedHashMap<>();
                fields.put("port", port.port());
                fields.putAll(port(port.attributes()));
                List<Object> gids = new ArrayList<>();
                for (GidEntry gid : port.gids()) {
                    Map<String, Object> entry = new LinkedHashMap<>();
                    entry.put("index", gid.index());
                    entry.put("gid", gid.gid().toString());
                    entry.put("type", gidType(gid.type()));
                    gids.add(entry);
                }
                fields.put("gids", gids);
                ports.add(fields);
            }
            device.put("ports", ports);
            Map<String, Object> profile = new LinkedHashMap<>();
            profile.put("class", facts.profile().hardwareClass().propertyValue());
            profile.put("description", facts.profile().hardwareClass().description());
            profile.put("emulated", facts.profile().emulated());
            profile.put("reasons", List.copyOf(facts.profile().reasons()));
            device.put("profile", profile);
            List<Object> capabilities = new ArrayList<>();
            for (CapabilityVerdict verdict : facts.capabilities()) {
                Map<String, Object> entry = new LinkedHashMap<>();
                entry.put("capability", verdict.capability().name());
                entry.put("label", verdict.capability().label());
                entry.put("verb", verdict.capability().verb());
                entry.put("status", status(verdict));
                entry.put("allowed", verdict.allowed());
                entry.put("detail", verdict.detail());
                entry.put("refusal", verdict.refusal());
                capabilities.add(entry);
            }
            device.put("capabilities", capabilities);
            list.add(device);
        }
        Map<String, Object> document = new LinkedHashMap<>();
        Map<String, Object> rdmaCore = new LinkedHashMap<>();
        rdmaCore.put("version", library.version());
        rdmaCore.put("libibverbs", library.libibverbs() == null ? null : library.libibverbs().toString());
        rdmaCore.put("fallbacks", library.fallbacks());
        document.put("rdma_core", rdmaCore);
        document.put("devices", list);
        return JsonText.write(document);
    }

    private static String hex(int value) {
        return "0x" + Integer.toHexString(value);
    }

    private static String guid(long guid) {
        String hex = String.format("%016x", guid);
        return hex.substring(0, 4) + ":" + hex.substring(4, 8) + ":" + hex.substring(8, 12) + ":" + hex.substring(12);
    }
}
