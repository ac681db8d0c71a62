// SPDX-License-Identifier: Apache-2.0
// vmxkit._vmxkit: the C++ half of the `vmxkit` Python package (python/vmxkit/__init__.py is the
// Python half, which gives these functions their Pythonic shape and types).
//
// Conventions: every byte string crosses as `bytes` (paths are os.fsencode()d by the Python
// half), text for people (messages, descriptions) comes back as `str` decoded from UTF-8 with
// U+FFFD for bytes that are not, and values that must round-trip (a .vmx value, a rendered
// document) come back as `bytes`. Results are plain tuples, lists and dicts, which the Python
// half turns into dataclasses. The GIL is released while the library works (loading, linting,
// analysing, planning, rendering, file I/O); arguments are converted before and results after.
// A vmxkit::Error becomes vmxkit.Error with its path, line and column; nothing else the library
// throws is expected (pybind11 turns it into RuntimeError, never a crash). Everything here goes
// through the public API, vmxkit/vmxkit.h, alone (tests/unit/layering_test.cpp checks it): what
// the package does, a C++ program can do the same way.
#include <Python.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "vmxkit/vmxkit.h"

namespace py = pybind11;

namespace {

// vmxkit._error.Error, looked up once when the module is loaded and kept for the process's life
// (never released, so no Python object is touched after the interpreter is gone).
PyObject* g_error_type = nullptr;

py::str text(std::string_view s) {
  PyObject* o = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace");
  if (o == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(o);
}

py::bytes raw(std::string_view s) { return py::bytes(s.data(), s.size()); }

py::object optional_text(std::string_view s) {
  if (s.empty()) return py::none();
  return text(s);
}

py::list texts(const std::vector<std::string>& strings) {
  py::list out;
  for (const std::string& s : strings) out.append(text(s));
  return out;
}

// NOLINTNEXTLINE(performance-unnecessary-value-param): pybind11's translator type takes it so
void translate(std::exception_ptr p) {
  try {
    if (p) std::rethrow_exception(p);
  } catch (const vmxkit::Error& e) {
    py::object path = optional_text(e.path());
    py::object line = e.line() != 0 ? py::object(py::int_(e.line())) : py::none();
    py::object column = e.column() != 0 ? py::object(py::int_(e.column())) : py::none();
    auto type = py::reinterpret_borrow<py::object>(g_error_type);
    py::object error = type(text(e.what()), path, line, column);
    PyErr_SetObject(g_error_type, error.ptr());
  }
}

// A path for the file system: refused with ValueError when it holds a NUL byte, which no file
// name can hold and which the system calls would take as its end (`lint('f\\x00x')` read `f`).
const std::string& path_arg(const std::string& path) {
  const std::size_t nul = path.find('\0');
  if (nul != std::string::npos) {
    throw py::value_error("vmxkit: the path " + py::repr(raw(path)).cast<std::string>() +
                          " holds a NUL byte at offset " + std::to_string(nul) +
                          "; no file name can hold one");
  }
  return path;
}

// Call path_arg(name) first, with the GIL held, when there is no data.
vmxkit::Input load_input(const std::string& name, const std::optional<std::string>& data) {
  return data ? vmxkit::load(name, *data) : vmxkit::load_file(name);
}

// --- lint

// A finding of a lint report.
py::tuple finding(const vmxkit::LintReport& report, const vmxkit::Diagnostic& d) {
  const vmxkit::Location at = report.location(d.begin);
  const std::optional<vmxkit::RuleInfo> rule = vmxkit::find_rule(d.rule_id);
  py::list notes;
  for (const vmxkit::Note& n : d.notes) {
    const vmxkit::Location note_at = report.location(n.begin);
    notes.append(py::make_tuple(text(n.message), note_at.line, note_at.column));
  }
  py::object fix = py::none();
  if (d.fix) fix = py::make_tuple(text(d.fix->title), text(vmxkit::to_string(d.fix->safety)));
  return py::make_tuple(text(d.rule_id), text(rule ? rule->name : std::string_view()),
                        text(vmxkit::to_string(d.severity)), text(d.message), text(report.path),
                        at.line, at.column, notes, fix);
}

// (path, format, [finding tuples]) for a file (data None) or bytes named `name`.
py::tuple lint(const std::string& name, const std::optional<std::string>& data,
               const vmxkit::Host* host) {
  if (!data) path_arg(name);
  vmxkit::LintReport report;
  {
    py::gil_scoped_release release;
    const vmxkit::Input input = load_input(name, data);
    vmxkit::LintOptions options;
    options.host = host;
    report = vmxkit::lint(input, options);
  }
  py::list findings;
  for (const vmxkit::Diagnostic& d : report.diagnostics) findings.append(finding(report, d));
  return py::make_tuple(text(report.path), text(report.format), findings);
}

// A name that is not an output format of the format table is a ValueError naming those there are.
void check_output_format(const std::string& name) {
  const std::optional<vmxkit::FormatInfo> f = vmxkit::find_format(name);
  if (f && f->output) return;
  std::string outputs;
  for (const vmxkit::FormatInfo& x : vmxkit::format_table()) {
    if (x.output) outputs += (outputs.empty() ? "" : ", ") + x.name;
  }
  throw py::value_error("unknown output format '" + name + "' (the outputs are: " + outputs + ")");
}

// The format table: one dict per format (name, subject, summary, input, output, what it carries).
py::list format_table() {
  py::list out;
  for (const vmxkit::FormatInfo& f : vmxkit::format_table()) {
    py::dict d;
    d["name"] = text(f.name);
    d["subject"] = text(f.subject);
    d["summary"] = text(f.summary);
    d["input"] = f.input;
    d["output"] = f.output;
    py::dict carries;
    carries["host_address"] = f.host_address;
    carries["dynamic_directpath"] = f.dynamic_directpath;
    carries["vgpu"] = f.vgpu;
    carries["sriov"] = f.sriov;
    carries["device_groups"] = f.device_groups;
    carries["dvx"] = f.dvx;
    d["carries"] = carries;
    out.append(d);
  }
  return out;
}

// A loaded input written in another format (`vmxkit convert`).
py::bytes convert(const std::string& name, const std::optional<std::string>& data,
                  const std::string& to) {
  check_output_format(to);
  if (!data) path_arg(name);
  std::string out;
  {
    py::gil_scoped_release release;
    const vmxkit::Input input = load_input(name, data);
    out = vmxkit::render(input.config(), to);
  }
  return raw(out);
}

py::list rules() {
  py::list out;
  for (const vmxkit::RuleInfo& r : vmxkit::rules()) {
    out.append(py::make_tuple(text(r.id), text(r.name), text(vmxkit::to_string(r.severity)),
                              text(r.summary), r.needs_host));
  }
  return out;
}

// --- hosts

using SourceArg = std::pair<std::string, std::optional<std::string>>;

vmxkit::Host load_host(const std::vector<SourceArg>& sources) {
  std::vector<vmxkit::HostSource> list;
  list.reserve(sources.size());
  for (const auto& [name, data] : sources) {
    list.push_back(data ? vmxkit::HostSource::from_text(name, *data)
                        : vmxkit::HostSource(path_arg(name)));
  }
  py::gil_scoped_release release;
  return vmxkit::load_host(list);
}

py::tuple device(const vmxkit::HostDevice& d) {
  auto id = [](const std::optional<std::uint16_t>& v) {
    return v ? py::object(py::int_(*v)) : py::none();
  };
  return py::make_tuple(text(d.address.to_string()), id(d.vendor_id), id(d.device_id),
                        text(vmxkit::to_string(d.role)), text(d.description), text(d.model),
                        d.numa_node ? py::object(py::int_(*d.numa_node)) : py::none());
}

py::list devices(const vmxkit::Host& host) {
  py::list out;
  for (const vmxkit::HostDevice& d : host.devices()) out.append(device(d));
  return out;
}

py::tuple pair(const vmxkit::PairReport& p) {
  py::list reasons;
  for (const vmxkit::PairReason& r : p.reasons) {
    reasons.append(py::make_tuple(text(vmxkit::to_string(r.effect)), text(r.text), text(r.fix)));
  }
  return py::make_tuple(text(p.a.to_string()), text(p.b.to_string()),
                        text(vmxkit::to_string(p.path)), text(p.path_detail),
                        text(vmxkit::to_string(p.verdict)), reasons);
}

// (gpus, nics, matrix, pairs, best_nic) with devices as device() tuples.
py::tuple topo(const vmxkit::Host& host, bool all_nics, std::optional<bool> iommu_translating) {
  vmxkit::Topology t;
  {
    py::gil_scoped_release release;
    vmxkit::TopologyOptions options;
    options.all_nics = all_nics;
    options.iommu_translating = iommu_translating;
    t = vmxkit::analyze(host, options);
  }
  auto listed = [&](const std::vector<vmxkit::Bdf>& addresses) {
    py::list out;
    for (const vmxkit::Bdf& a : addresses) {
      const vmxkit::HostDevice* d = host.find(a);
      if (d != nullptr) {
        out.append(device(*d));
      } else {
        out.append(py::make_tuple(text(a.to_string()), py::none(), py::none(), text("other"),
                                  text(a.to_string()), text(""), py::none()));
      }
    }
    return out;
  };
  py::list matrix;
  for (const auto& row : t.matrix) {
    py::list r;
    for (const vmxkit::PathClass c : row) r.append(text(vmxkit::to_string(c)));
    matrix.append(r);
  }
  py::list pairs;
  for (const vmxkit::PairReport& p : t.pairs) pairs.append(pair(p));
  py::list best;
  for (const auto& b : t.best_nic) best.append(b ? py::object(py::int_(*b)) : py::none());
  return py::make_tuple(listed(t.gpus), listed(t.nics), matrix, pairs, best);
}

py::tuple mmio_result(const vmxkit::MmioSize& m) {
  py::list bars;
  for (const vmxkit::MmioBar& b : m.bars) {
    bars.append(py::make_tuple(text(b.device), text(b.bar), b.size, b.offset, text(b.source)));
  }
  return py::make_tuple(m.size_gb, m.kb_gb ? py::object(py::int_(*m.kb_gb)) : py::none(),
                        m.total_bytes, m.estimated, bars, texts(m.lines), texts(m.unknown),
                        texts(m.below_4g), texts(m.unknown_gpus), texts(m.unassigned));
}

py::tuple mmio(const vmxkit::Host* host, const std::vector<std::string>& devices) {
  vmxkit::MmioSize m;
  {
    py::gil_scoped_release release;
    m = vmxkit::size_mmio(host, devices);
  }
  return mmio_result(m);
}

// --- plans

vmxkit::Plan plan(const vmxkit::Host* host, const std::vector<std::string>& gpus,
                  std::optional<unsigned> gpu_count, const std::vector<std::string>& nics,
                  std::optional<std::string> vgpu, bool sriov, const std::string& network,
                  std::optional<std::uint64_t> memory_mb, const std::string& system_id,
                  bool allow_degraded, const std::string& host_label,
                  const std::optional<SourceArg>& base,
                  const std::optional<SourceArg>& config_target, const std::string& device_group) {
  vmxkit::PlanRequest r;
  r.gpus = gpus;
  r.gpu_count = gpu_count;
  r.nics = nics;
  r.vgpu = std::move(vgpu);
  r.sriov = sriov;
  r.network = network;
  r.memory_mb = memory_mb;
  r.system_id = system_id;
  r.allow_degraded = allow_degraded;
  r.host_label = host_label;
  if (base && !base->second) path_arg(base->first);
  if (config_target && !config_target->second) path_arg(config_target->first);
  py::gil_scoped_release release;
  if (base) r.base = load_input(base->first, base->second);
  r.device_group = device_group;
  if (config_target) {
    r.config_target_name = config_target->first;
    r.config_target = config_target->second ? *config_target->second
                                            : vmxkit::read_file_bytes(config_target->first);
  }
  return vmxkit::plan(host, r);
}

py::tuple planned(const vmxkit::PlannedDevice& d) {
  return py::make_tuple(d.address ? py::object(text(d.address->to_string())) : py::none(),
                        d.vendor_id, d.device_id, d.sriov_vf, text(d.label), text(d.model));
}

py::bytes render_plan(const vmxkit::Plan& p, const std::string& format_name,
                      const std::string& template_name, const std::string& vm) {
  check_output_format(format_name);
  std::string out;
  {
    py::gil_scoped_release release;
    vmxkit::RenderOptions options;
    options.template_name = template_name;
    options.vm = vm;
    out = vmxkit::render(p, format_name, options);
  }
  return raw(out);
}

// --- apply

py::list diff_lines(const std::vector<vmxkit::DiffLine>& diff) {
  py::list out;
  for (const vmxkit::DiffLine& l : diff) {
    out.append(py::make_tuple(text(std::string(1, l.sign)), text(l.what)));
  }
  return out;
}

// A document named `name` (read from that file when `data` is None), as given by the Python half.
vmxkit::DocumentSource document(const std::string& name, const std::optional<std::string>& data) {
  return data ? vmxkit::DocumentSource::from_bytes(name, *data) : vmxkit::DocumentSource(name);
}

// (spec_xml, diff, placeholders, empty): the change that makes the VM of `vm` (a ConfigInfo
// document) what the plan document asks, as `vmxkit apply` computes it.
py::tuple config_change(const std::string& vm_name, const std::optional<std::string>& vm_data,
                        const std::string& plan_name, const std::optional<std::string>& plan_data,
                        bool firmware_change, bool keep_memory) {
  if (!vm_data) path_arg(vm_name);
  if (!plan_data) path_arg(plan_name);
  vmxkit::ConfigChange change;
  {
    py::gil_scoped_release release;
    change = vmxkit::config_change(document(vm_name, vm_data), document(plan_name, plan_data),
                                   {firmware_change, keep_memory});
  }
  return py::make_tuple(raw(change.spec_xml), diff_lines(change.diff), texts(change.placeholders),
                        change.nothing_to_send);
}

// Seconds as the Python half gives them, in whole milliseconds.
std::chrono::milliseconds to_ms(double seconds) {
  return std::chrono::milliseconds(static_cast<long>(seconds * 1000));
}

// The dict vmxkit.apply() passes: server, username, password (None: from the URL or the
// environment), insecure, proxy, timeout; the VM's name, uuid, instance_uuid, moid, datacenter
// and folder.
vmxkit::ApplyRequest request_of(const py::dict& d) {
  auto str = [&](const char* key) { return d[key].cast<std::string>(); };
  auto opt = [&](const char* key) {
    const py::object v = d[key];
    return v.is_none() ? std::nullopt : std::optional<std::string>(v.cast<std::string>());
  };
  vmxkit::ApplyRequest r;
  r.server.url = str("server");
  r.server.username = opt("username");
  r.server.password = opt("password");
  r.server.insecure = d["insecure"].cast<bool>();
  r.server.proxy = str("proxy");
  r.server.timeout = to_ms(d["timeout"].cast<double>());
  r.vm.name = str("name");
  r.vm.uuid = str("uuid");
  r.vm.instance_uuid = d["instance_uuid"].cast<bool>();
  r.vm.moid = str("moid");
  r.vm.datacenter = str("datacenter");
  r.vm.folder = str("folder");
  return r;
}

py::dict apply_result(const vmxkit::ApplyReport& r) {
  py::dict d;
  d["status"] = text(vmxkit::to_string(r.status));
  d["changed"] = r.changed;
  d["vm"] = py::make_tuple(text(r.vm.name), text(r.vm.moref), text(r.vm.power_state));
  d["diff"] = diff_lines(r.change.diff);
  d["placeholders"] = texts(r.change.placeholders);
  d["checks"] =
      py::make_tuple(texts(r.checks.passed), texts(r.checks.failed), texts(r.checks.not_checked));
  d["task"] = !r.task ? py::object(py::none())
                      : py::object(py::make_tuple(text(r.task->moref), r.task->success,
                                                  text(r.task->fault), text(r.task->message)));
  d["left"] = diff_lines(r.left);
  py::list findings;
  if (r.lint) {
    for (const vmxkit::Diagnostic& diag : r.lint->diagnostics) {
      findings.append(finding(*r.lint, diag));
    }
  }
  d["lint_path"] = text(r.lint ? std::string_view(r.lint->path) : std::string_view());
  d["findings"] = findings;
  return d;
}

// vmxkit.apply(): vmxkit::apply_plan() against the server, as `vmxkit apply` runs it.
py::dict apply(const py::dict& target, const std::string& plan_name,
               const std::optional<std::string>& plan_data, bool dry_run, bool firmware_change,
               bool keep_memory, double task_timeout_s) {
  if (!plan_data) path_arg(plan_name);
  vmxkit::ApplyRequest request = request_of(target);
  vmxkit::ApplyReport result;
  {
    py::gil_scoped_release release;
    request.plan = document(plan_name, plan_data);
    request.change = {firmware_change, keep_memory};
    request.dry_run = dry_run;
    request.task_timeout = to_ms(task_timeout_s);
    result = vmxkit::apply_plan(request);
  }
  return apply_result(result);
}

void add_apply(py::module_& m) {
  m.def("config_change", &config_change, py::arg("vm_name"), py::arg("vm_data").none(true),
        py::arg("plan_name"), py::arg("plan_data").none(true), py::arg("firmware_change"),
        py::arg("keep_memory"));
  m.def("apply", &apply, py::arg("target"), py::arg("plan_name"), py::arg("plan_data").none(true),
        py::arg("dry_run"), py::arg("firmware_change"), py::arg("keep_memory"),
        py::arg("task_timeout"));
}

// --- .vmx documents

/// The bytes of a `.vmx` being edited, parsed when a read needs it (and again after an edit).
/// Its methods keep the GIL: they change the object, which other Python threads may be reading,
/// and a .vmx edit is quick (the file-level work, read_file() and save(), releases it).
class EditableDocument {
 public:
  EditableDocument(std::string bytes, std::string path)
      : bytes_(std::move(bytes)), path_(std::move(path)) {}

  py::bytes bytes() const { return raw(bytes_); }

  py::object get(const std::string& key) {
    const std::optional<std::string> value = parsed().get(key);
    return value ? py::object(raw(*value)) : py::none();
  }

  // (key, value) of every entry, in file order, keys as written, values decoded.
  py::list entries() {
    py::list out;
    for (const vmxkit::VmxEntry& e : parsed().entries()) {
      out.append(py::make_tuple(raw(e.key), raw(e.value)));
    }
    return out;
  }

  void set(const std::string& key, const std::string& value) {
    bytes_ = vmxkit::vmx_set(bytes_, key, value);
    doc_.reset();
  }

  bool unset(const std::string& key) {
    bool removed = false;
    bytes_ = vmxkit::vmx_unset(bytes_, key, &removed);
    doc_.reset();
    return removed;
  }

  // (message, line, column) of each line VMware cannot read.
  py::list problems() {
    py::list out;
    for (const vmxkit::VmxProblem& p : parsed().problems()) {
      out.append(py::make_tuple(text(p.message), p.location.line, p.location.column));
    }
    return out;
  }

 private:
  const vmxkit::VmxDocument& parsed() {
    if (!doc_) doc_ = vmxkit::VmxDocument::parse(bytes_, path_);
    return *doc_;
  }

  std::string bytes_;
  std::string path_;
  std::optional<vmxkit::VmxDocument> doc_;
};

py::bytes read_file(const std::string& path) {
  path_arg(path);
  std::string bytes;
  {
    py::gil_scoped_release release;
    bytes = vmxkit::read_file_bytes(path);
  }
  return raw(bytes);
}

// Document.save(): writes `data` to `target` through the one write path (vmxkit::write_file_bytes),
// refused while the VM holds its lock unless `force`. When the Document was read from a file
// (`source`, holding `expected` then) and `target` is that file, decided under the lock (the
// same path once links are resolved, or the same device and inode), the save is the edit
// `vmxkit set -i` makes: refused when the file no longer holds `expected`, skipped when it
// holds `data` already. Any other target is written whole. Returns whether it wrote.
bool save(const std::string& target, const std::optional<std::string>& source,
          const std::optional<std::string>& expected, const std::string& data, bool force) {
  path_arg(target);
  if (source) path_arg(*source);
  py::gil_scoped_release release;
  vmxkit::WriteOptions options;
  options.ignore_vm_lock = force;
  options.override_hint = "pass force=True";
  if (source && expected) options.edit_of = vmxkit::EditedFile{*source, *expected, "the Document"};
  return vmxkit::write_file_bytes(target, data, options);
}

}  // namespace

PYBIND11_MODULE(_vmxkit, m) {
  m.doc() = "The C++ half of the vmxkit package; use `import vmxkit`.";
  py::object error_type = py::module_::import("vmxkit._error").attr("Error");
  g_error_type = error_type.release().ptr();
  py::register_exception_translator(&translate);

  m.attr("__version__") = text(vmxkit::version());

  py::class_<vmxkit::Host>(m, "Host")
      .def("devices", &devices)
      .def("warnings", [](const vmxkit::Host& h) { return texts(h.warnings()); })
      .def("topo", &topo, py::arg("all_nics"), py::arg("iommu_translating").none(true));

  py::class_<vmxkit::Plan>(m, "Plan")
      .def("render", &render_plan, py::arg("format"), py::arg("template_name"), py::arg("vm"))
      .def("gpus",
           [](const vmxkit::Plan& p) {
             py::list out;
             for (const auto& d : p.gpus()) out.append(planned(d));
             return out;
           })
      .def("nics",
           [](const vmxkit::Plan& p) {
             py::list out;
             for (const auto& d : p.nics()) out.append(planned(d));
             return out;
           })
      .def("pairs",
           [](const vmxkit::Plan& p) {
             py::list out;
             for (const vmxkit::PlannedPair& pp : p.pairs()) {
               out.append(py::make_tuple(pp.gpu, pp.peer, pp.peer_is_gpu,
                                         pp.verdict ? py::object(pair(*pp.verdict)) : py::none()));
             }
             return out;
           })
      .def(
          "vgpu",
          [](const vmxkit::Plan& p) { return p.vgpu() ? py::object(text(*p.vgpu())) : py::none(); })
      .def("memory_mb", &vmxkit::Plan::memory_mb)
      .def("mmio", [](const vmxkit::Plan& p) { return mmio_result(p.mmio()); })
      .def("needs_64bit_mmio", &vmxkit::Plan::needs_64bit_mmio)
      .def("p2p", &vmxkit::Plan::p2p)
      .def("explanation", [](const vmxkit::Plan& p) { return texts(p.explanation()); });

  py::class_<EditableDocument>(m, "Document")
      .def(py::init<std::string, std::string>(), py::arg("data"), py::arg("path"))
      .def("bytes", &EditableDocument::bytes)
      .def("get", &EditableDocument::get, py::arg("key"))
      .def("entries", &EditableDocument::entries)
      .def("set", &EditableDocument::set, py::arg("key"), py::arg("value"))
      .def("unset", &EditableDocument::unset, py::arg("key"))
      .def("problems", &EditableDocument::problems);

  m.def("lint", &lint, py::arg("name"), py::arg("data").none(true), py::arg("host").none(true));
  m.def("convert", &convert, py::arg("name"), py::arg("data").none(true), py::arg("to"));
  m.def("rules", &rules);
  m.def("format_table", &format_table);
  m.def("load_host", &load_host, py::arg("sources"));
  m.def("mmio", &mmio, py::arg("host").none(true), py::arg("devices"));
  m.def("plan", &plan, py::arg("host").none(true), py::arg("gpus"), py::arg("gpu_count").none(true),
        py::arg("nics"), py::arg("vgpu").none(true), py::arg("sriov"), py::arg("network"),
        py::arg("memory_mb").none(true), py::arg("system_id"), py::arg("allow_degraded"),
        py::arg("host_label"), py::arg("base").none(true), py::arg("config_target").none(true),
        py::arg("device_group"));
  add_apply(m);
  m.def("read_file", &read_file, py::arg("path"));
  m.def("save", &save, py::arg("target"), py::arg("source").none(true),
        py::arg("expected").none(true), py::arg("data"), py::arg("force"));
  m.def(
      "lock_present",
      [](const std::string& path) { return optional_text(vmxkit::vm_lock(path_arg(path))); },
      py::arg("path"));
}
