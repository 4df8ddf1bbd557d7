// Tests for core/config: config.ini against config_keys.def, search order, env, errors, sources.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <dlfcn.h>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/config.h"
#include "core/error.h"
#include "core/registry.h"

using namespace hassium;
namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using Catch::Matchers::Equals;

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_file(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

// A fresh directory under the system temp dir, removed at scope exit.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "hassium-config-XXXXXX").string();
    REQUIRE(mkdtemp(tmpl.data()));
    path = tmpl;
  }
  ~TempDir() { fs::remove_all(path); }
};

const std::string kSourceIni = std::string(HASSIUM_SOURCE_DIR) + "/config.ini";

// The message of the UserError `f` throws ("" when it throws none).
template <typename F> std::string user_error(F&& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

// This binary links no stack, so core's tests publish a registry of their own: engines as a
// build with only the cpu engine has them.
void publish_test_engines() {
  static const Registry<int> engines("stack.engine", "engine", {{"cpu", 0, "the one engine"}});
  publish_registry(engines);
}

} // namespace

TEST_CASE("config_keys.def is consistent") {
  std::set<std::string> names, envs;
  for (const auto& k : config_keys()) {
    INFO("[" << k.section << "] " << k.key);
    CHECK(names.insert(std::string(k.section) + "." + std::string(k.key)).second);
    CHECK(envs.insert(k.env_name()).second);
    CHECK_FALSE(k.doc.empty());
    if (k.type == ConfigType::k_choice) {
      auto valid = k.valid_values();
      CHECK(std::find(valid.begin(), valid.end(), k.default_value) != valid.end());
    } else if (k.type == ConfigType::k_component || k.type == ConfigType::k_component_list) {
      // The registry's id is the key's own name (test/vem/test_stack.cpp checks the defaults).
      CHECK(k.valid == std::string(k.section) + "." + std::string(k.key));
    } else {
      CHECK(k.valid.empty());
    }
  }
  CHECK(config_keys().size() >= 18);
  CHECK_NOTHROW(Config::defaults({{"HOME", "/home/u"}}));
}

TEST_CASE("config.ini holds exactly the keys of config_keys.def, with the same defaults") {
  Environment env{{"HOME", "/home/u"}};
  Config file = Config::from_text(read_file(kSourceIni), kSourceIni, env);
  Config defaults = Config::defaults(env);
  for (size_t i = 0; i < config_keys().size(); ++i) {
    const auto& k = config_keys()[i];
    INFO("[" << k.section << "] " << k.key);
    CHECK(file.value_at(i).source.kind == ConfigSource::Kind::File);
    CHECK(file.value_at(i).text == defaults.value_at(i).text);
  }
  // Unknown keys in config.ini would have thrown above; every key is documented right
  // above it, naming its env var.
  std::istringstream in(read_file(kSourceIni));
  std::string line, comment, section;
  int documented = 0;
  while (std::getline(in, line)) {
    if (line.empty()) {
      comment.clear();
    } else if (line[0] == '#') {
      comment += line + "\n";
    } else if (line[0] == '[') {
      section = line.substr(1, line.find(']') - 1);
      comment.clear();
    } else {
      std::string key = line.substr(0, line.find(' '));
      INFO("config.ini key " << section << "." << key);
      std::string env = "HASSIUM_" + section + "_" + key;
      for (char& c : env) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      CHECK_THAT(comment, Contains("Env: " + env));
      ++documented;
      comment.clear();
    }
  }
  CHECK(documented == static_cast<int>(config_keys().size()));
}

TEST_CASE("defaults, typed accessors, ~ expansion") {
  Config c = Config::defaults({{"HOME", "/home/u"}});
  CHECK(c.file().empty());
  CHECK(c.get_string("stack", "engine") == "cpu");
  publish_test_engines();
  CHECK(c.choice("stack", "engine") == "cpu");
  CHECK(c.get_list("stack", "filters") ==
        std::vector<std::string>{"expand_power", "forward_copies"});
  CHECK(c.get_string("fuser", "cache_dir") == "/home/u/.cache/hassium/fuser");
  CHECK(c.get_int("fuser", "optimal_budget") == 100000);
  CHECK(c.get_bool("memory", "pool"));
  CHECK_FALSE(c.get_bool("profile", "enabled"));
  CHECK(c.get_string("profile", "dot_dir") == "");
  CHECK(c.value("cpu", "threads").source.str() == "default");
  // Reading a key as the wrong type, or a key that does not exist, is a bug in hassium.
  CHECK_THROWS_AS(c.get_int("stack", "engine"), InternalError);
  CHECK_THROWS_AS(c.get_string("stack", "nope"), InternalError);
  CHECK_THROWS_AS(c.get_list("fuser", "algorithm"), InternalError);
  // Without HOME, `~` cannot be expanded.
  CHECK_THAT(user_error([] { Config::defaults({}); }),
             Equals("[fuser] cache_dir '~/.cache/hassium/fuser' (from default): cannot expand ~, "
                    "HOME is not set"));
}

TEST_CASE("file values: sources with lines, quotes, lists, bools") {
  std::string text = "; a comment\n"
                     "[stack]\n"
                     "filters = a, b,,c \n"
                     "\n"
                     "[cpu]\n"
                     "  threads=4\n"
                     "cache_dir = \"/tmp/k k\"\n"
                     "[memory]\n"
                     "pool = Off\n"
                     "[profile]\n";
  Config c = Config::from_text(text, "my.ini", {{"HOME", "/h"}});
  CHECK(c.file() == "my.ini");
  CHECK(c.get_list("stack", "filters") == std::vector<std::string>{"a", "b", "c"});
  CHECK(c.value("stack", "filters").source.str() == "my.ini:3");
  CHECK(c.get_int("cpu", "threads") == 4);
  CHECK(c.value("cpu", "threads").source.str() == "my.ini:6");
  CHECK(c.get_string("cpu", "cache_dir") == "/tmp/k k");
  CHECK_FALSE(c.get_bool("memory", "pool"));
  CHECK(c.value("cpu", "opt_level").source.kind == ConfigSource::Kind::Default);
}

TEST_CASE("env overrides the file and the defaults") {
  std::string text = "[fuser]\nalgorithm = linear\noptimal_budget = 5\n";
  Environment env{{"HOME", "/h"},
                  {"HASSIUM_FUSER_ALGORITHM", "optimal"},
                  {"HASSIUM_CPU_CACHE_DIR", "~/k"},
                  {"HASSIUM_OTHER_THING", "ignored: not a config section"}};
  Config c = Config::from_text(text, "f.ini", env);
  CHECK(c.get_string("fuser", "algorithm") == "optimal");
  CHECK(c.value("fuser", "algorithm").source.str() == "env HASSIUM_FUSER_ALGORITHM");
  CHECK(c.get_int("fuser", "optimal_budget") == 5);
  CHECK(c.value("fuser", "optimal_budget").source.str() == "f.ini:3");
  CHECK(c.get_string("cpu", "cache_dir") == "/h/k");

  SECTION("HASSIUM_PROFILE is an alias of HASSIUM_PROFILE_ENABLED, which wins") {
    Config a = Config::defaults({{"HOME", "/h"}, {"HASSIUM_PROFILE", "1"}});
    CHECK(a.get_bool("profile", "enabled"));
    CHECK(a.value("profile", "enabled").source.str() == "env HASSIUM_PROFILE");
    Config b = Config::defaults(
        {{"HOME", "/h"}, {"HASSIUM_PROFILE", "1"}, {"HASSIUM_PROFILE_ENABLED", "no"}});
    CHECK_FALSE(b.get_bool("profile", "enabled"));
    CHECK(b.value("profile", "enabled").source.str() == "env HASSIUM_PROFILE_ENABLED");
  }
  SECTION("HASSIUM_DOT_DIR is an alias of HASSIUM_PROFILE_DOT_DIR, which wins") {
    Config a = Config::defaults({{"HOME", "/h"}, {"HASSIUM_DOT_DIR", "/tmp/d"}});
    CHECK(a.get_string("profile", "dot_dir") == "/tmp/d");
    CHECK(a.value("profile", "dot_dir").source.str() == "env HASSIUM_DOT_DIR");
    Config b = Config::defaults(
        {{"HOME", "/h"}, {"HASSIUM_DOT_DIR", "/tmp/d"}, {"HASSIUM_PROFILE_DOT_DIR", "/tmp/e"}});
    CHECK(b.get_string("profile", "dot_dir") == "/tmp/e");
  }
}

TEST_CASE("bad values name the key, the value and where it came from") {
  Environment home{{"HOME", "/h"}};
  auto with_env = [&](std::string name, std::string value) {
    Environment env = home;
    env[name] = value;
    return user_error([&] { Config::defaults(env); });
  };
  CHECK(with_env("HASSIUM_CPU_THREADS", "four") ==
        "[cpu] threads 'four' (from env HASSIUM_CPU_THREADS) is not an integer");
  CHECK(with_env("HASSIUM_CPU_THREADS", "4x") ==
        "[cpu] threads '4x' (from env HASSIUM_CPU_THREADS) is not an integer");
  CHECK(with_env("HASSIUM_MEMORY_POOL", "maybe") ==
        "[memory] pool 'maybe' (from env HASSIUM_MEMORY_POOL) is not a bool; valid: true, 1, "
        "yes, on, false, 0, no, off");
  CHECK(with_env("HASSIUM_PYTHON_SCALAR_READS", "eager") ==
        "unknown [python] scalar_reads 'eager' (from env HASSIUM_PYTHON_SCALAR_READS); valid: "
        "flush, lazy");
  CHECK(with_env("HASSIUM_CLUSTER_OVERLAP", "yes") ==
        "unknown [cluster] overlap 'yes' (from env HASSIUM_CLUSTER_OVERLAP); valid: auto, on, "
        "off");
  publish_test_engines();
  CHECK(with_env("HASSIUM_STACK_ENGINE", "cuda") ==
        "unknown [stack] engine 'cuda' (from env HASSIUM_STACK_ENGINE); valid: cpu");
  CHECK(with_env("HASSIUM_FUSER_ALGORTHM", "greedy") ==
        "unknown env HASSIUM_FUSER_ALGORTHM: no such key in [fuser]; valid: "
        "HASSIUM_FUSER_ALGORITHM, HASSIUM_FUSER_COST_MODEL, HASSIUM_FUSER_CACHE, "
        "HASSIUM_FUSER_CACHE_DIR, HASSIUM_FUSER_OPTIMAL_BUDGET, HASSIUM_FUSER_SEARCH_MIN_BYTES, "
        "HASSIUM_FUSER_SPLIT_BLOCK_SIZE");

  auto with_file = [&](std::string text) {
    return user_error([&] { Config::from_text(text, "/etc/h.ini", home); });
  };
  CHECK(with_file("[cpu]\n# threads\nthreads = -\n") ==
        "[cpu] threads '-' (from /etc/h.ini:3) is not an integer");
  CHECK(with_file("[memory]\n\npool = 2\n") ==
        "[memory] pool '2' (from /etc/h.ini:3) is not a bool; valid: true, 1, yes, on, false, "
        "0, no, off");
  CHECK(with_file("[cpu]\nthreads = 2\n[fusr]\nalgorithm = greedy\n") ==
        "/etc/h.ini:3: unknown section [fusr]; valid: stack, filters, cluster, fuser, cpu, gpu, "
        "cuda, memory, python, cxx, profile");
  CHECK(with_file("[cluster]\noverlap = always\n") ==
        "unknown [cluster] overlap 'always' (from /etc/h.ini:2); valid: auto, on, off");
  CHECK(with_file("[memory]\npool = true\npool_cap = 1\n") ==
        "/etc/h.ini:3: unknown key 'pool_cap' in [memory]; valid: pool, pool_cap_mb, huge_pages");
  CHECK(with_file("threads = 1\n[cpu]\n") == "/etc/h.ini:1: key 'threads' comes before any "
                                             "[section]");
  CHECK(with_file("[cpu]\nthreads 1\n") == "/etc/h.ini:2: '=' character not found in line");
  CHECK(with_file("[cpu]\nthreads = 1\nthreads = 2\n") == "/etc/h.ini:3: duplicate key name");
  CHECK(with_file("[empty]\n[cpu]\n") ==
        "/etc/h.ini:1: unknown section [empty]; valid: stack, filters, cluster, fuser, cpu, gpu, "
        "cuda, memory, python, cxx, profile");
}

TEST_CASE("choice() checks a registry's names") {
  const Registry<int> algorithms("fuser.algorithm", "fusion algorithm",
                                 {{"singleton", 1, ""}, {"linear", 2, ""}, {"greedy", 3, ""}});
  Config c = Config::defaults({{"HOME", "/h"}, {"HASSIUM_FUSER_ALGORITHM", "gredy"}});
  CHECK(user_error([&] { c.choice("fuser", "algorithm", algorithms); }) ==
        "unknown [fuser] algorithm 'gredy' (from env HASSIUM_FUSER_ALGORITHM); valid: singleton, "
        "linear, greedy");
  CHECK(user_error([&] { c.component("fuser", "algorithm", algorithms); }) ==
        "unknown [fuser] algorithm 'gredy' (from env HASSIUM_FUSER_ALGORITHM); valid: singleton, "
        "linear, greedy");
  Config ok = Config::defaults({{"HOME", "/h"}});
  CHECK(ok.choice("fuser", "algorithm", algorithms) == "greedy");
  CHECK(ok.component("fuser", "algorithm", algorithms) == 3);

  const Registry<int> filters("stack.filters", "filter", {{"fold", 0, ""}, {"cse", 1, ""}});
  Config f = Config::from_text("[stack]\nfilters = cse, fold\n", "x.ini", {{"HOME", "/h"}});
  CHECK(f.choice_list("stack", "filters", filters) == std::vector<std::string>{"cse", "fold"});
  Config g = Config::from_text("[stack]\nfilters = cse,flod\n", "x.ini", {{"HOME", "/h"}});
  CHECK(user_error([&] { g.choice_list("stack", "filters", filters); }) ==
        "unknown 'flod' in [stack] filters 'cse,flod' (from x.ini:2); valid: fold, cse");
}

TEST_CASE("a component is checked at load against its registry, when it is published") {
  publish_test_engines();
  const ConfigKey* engine = nullptr;
  const ConfigKey* cost_model = nullptr;
  for (const auto& k : config_keys()) {
    if (k.section == "stack" && k.key == "engine") engine = &k;
    if (k.section == "fuser" && k.key == "cost_model") cost_model = &k;
  }
  REQUIRE(engine);
  REQUIRE(cost_model);
  REQUIRE(engine->registry() == published_registry("stack.engine"));
  CHECK(engine->valid_values() == std::vector<std::string>{"cpu"});
  // Published: a name this build lacks fails the load, wherever it came from.
  CHECK(user_error([] {
          Config::defaults({{"HOME", "/h"}, {"HASSIUM_STACK_ENGINE", "cuda"}});
        }) == "unknown [stack] engine 'cuda' (from env HASSIUM_STACK_ENGINE); valid: cpu");
  CHECK(user_error([] {
          Config::from_text("[stack]\nengine = cuda\n", "e.ini", {{"HOME", "/h"}});
        }) == "unknown [stack] engine 'cuda' (from e.ini:2); valid: cpu");
  // Not published (no fusion code in this binary): loaded as it is, its owner checks it.
  REQUIRE(cost_model->registry() == nullptr);
  CHECK(cost_model->valid_values().empty());
  Config c = Config::defaults({{"HOME", "/h"}, {"HASSIUM_FUSER_COST_MODEL", "anything"}});
  CHECK(c.choice("fuser", "cost_model") == "anything");
  const Registry<int> models("fuser.cost_model", "cost model", {{"bohrium", 0, ""}});
  CHECK(
      user_error([&] { c.component("fuser", "cost_model", models); }) ==
      "unknown [fuser] cost_model 'anything' (from env HASSIUM_FUSER_COST_MODEL); valid: bohrium");
}

TEST_CASE("an installed config.ini is found next to the library or in ../share/hassium") {
  CHECK(Config::config_near_library("/opt/h/lib/libhassium.so") ==
        std::vector<std::string>{"/opt/h/lib/config.ini", "/opt/h/share/hassium/config.ini"});
  CHECK(Config::config_near_library("/venv/site-packages/hassium/libhassium.so.0")[0] ==
        "/venv/site-packages/hassium/config.ini");
  // The place of the file holding the config code is on the search path, before the source
  // tree's copy.
  auto path = Config::search_path({{"HOME", "/h"}});
  Dl_info info{};
  REQUIRE(dladdr(reinterpret_cast<void*>(&Config::search_path), &info));
  for (const std::string& p : Config::config_near_library(info.dli_fname))
    CHECK(std::find(path.begin(), path.end(), p) < path.end() - 1);
}

TEST_CASE("search order: HASSIUM_CONFIG, ~/.config/hassium, installed, source tree") {
  TempDir tmp;
  fs::path home = tmp.path / "home";
  fs::path user_ini = home / ".config/hassium/config.ini";
  fs::path explicit_ini = tmp.path / "explicit.ini";
  fs::create_directories(home);
  Environment env{{"HOME", home.string()}};

  auto path = Config::search_path(env);
  REQUIRE(path.size() >= 2);
  CHECK(path[0] == user_ini.string());
  CHECK(path.back() == kSourceIni);

  // Nothing in HOME: the first installed copy that exists, else the source tree's.
  auto installed = std::find_if(path.begin() + 1, path.end(),
                                [](const std::string& p) { return fs::is_regular_file(p); });
  Config fallback = Config::load(env);
  CHECK(fallback.file() == *installed);

  write_file(user_ini, "[cpu]\nthreads = 3\n");
  Config user = Config::load(env);
  CHECK(user.file() == user_ini.string());
  CHECK(user.get_int("cpu", "threads") == 3);
  CHECK(user.value("cpu", "opt_level").source.kind == ConfigSource::Kind::Default);

  write_file(explicit_ini, "[cpu]\nthreads = 7\n");
  env["HASSIUM_CONFIG"] = explicit_ini.string();
  CHECK(Config::search_path(env)[0] == explicit_ini.string());
  Config chosen = Config::load(env);
  CHECK(chosen.file() == explicit_ini.string());
  CHECK(chosen.get_int("cpu", "threads") == 7);
  CHECK(chosen.value("cpu", "threads").source.str() == explicit_ini.string() + ":2");

  env["HASSIUM_CPU_THREADS"] = "9";
  CHECK(Config::load(env).get_int("cpu", "threads") == 9);

  env["HASSIUM_CONFIG"] = (tmp.path / "missing.ini").string();
  CHECK(user_error([&] { Config::load(env); }) ==
        "HASSIUM_CONFIG names " + (tmp.path / "missing.ini").string() + ", which does not exist");
}

TEST_CASE("global() reads the process environment, reload() rereads it") {
  TempDir tmp;
  fs::path ini = tmp.path / "g.ini";
  write_file(ini, "[python]\nflush_threshold = 42\n");
  REQUIRE(setenv("HASSIUM_CONFIG", ini.c_str(), 1) == 0);
  Config::reload();
  auto first = Config::global();
  CHECK(first->get_int("python", "flush_threshold") == 42);
  CHECK(Config::global() == first);

  REQUIRE(setenv("HASSIUM_PYTHON_FLUSH_THRESHOLD", "7", 1) == 0);
  Config::reload();
  CHECK(Config::global()->get_int("python", "flush_threshold") == 7);
  CHECK(first->get_int("python", "flush_threshold") == 42); // holders keep their copy

  // A bad configuration throws and leaves the previous one in place.
  REQUIRE(setenv("HASSIUM_PYTHON_FLUSH_THRESHOLD", "lots", 1) == 0);
  CHECK_THROWS_AS(Config::reload(), UserError);
  CHECK(Config::global()->get_int("python", "flush_threshold") == 7);

  Config::set_global(std::make_shared<const Config>(Config::defaults({{"HOME", "/h"}})));
  CHECK(Config::global()->get_int("python", "flush_threshold") == 1000);
  unsetenv("HASSIUM_PYTHON_FLUSH_THRESHOLD");
  unsetenv("HASSIUM_CONFIG");
}
