// Tests for core/registry: lookups, messages, registration order, duplicates, the catalog.
#include <catch2/catch.hpp>

#include <thread>

#include "core/error.h"
#include "core/registry.h"

using namespace hassium;

namespace {
enum class Color { RED, GREEN };
} // namespace

TEST_CASE("a registry finds entries by name and lists the valid names otherwise") {
  const Registry<Color> colors("test.color", "color",
                               {{"red", Color::RED, "warm"}, {"green", Color::GREEN, "cool"}});
  CHECK(colors.id() == "test.color");
  CHECK(colors.what() == "color");
  CHECK(colors.find("green").value == Color::GREEN);
  CHECK(colors.try_find("blue") == nullptr);
  CHECK(colors.contains("red"));
  CHECK_FALSE(colors.contains("Red"));
  CHECK(colors.names() == std::vector<std::string>{"red", "green"});
  CHECK(colors.joined_names() == "red, green");
  CHECK(colors.doc("red") == "warm");
  CHECK(colors.doc("blue").empty());
  CHECK(colors.entries().size() == 2);
  CHECK_THROWS_AS(colors.find("blue"), UserError);
  CHECK_THROWS_WITH(colors.find("blue"), "unknown color 'blue'; valid: red, green");
  const Registry<int> empty("test.empty", "thing");
  CHECK_THROWS_WITH(empty.find("x"), "unknown thing 'x'; valid: (none in this build)");
}

TEST_CASE("add() appends, keeps references valid and refuses a name twice") {
  Registry<int> r("test.numbers", "number", {{"one", 1, ""}});
  const int& one = r.find("one").value;
  for (int i = 2; i < 200; ++i) r.add({"n" + std::to_string(i), i, ""});
  CHECK(&one == &r.find("one").value);
  CHECK(r.find("n150").value == 150);
  CHECK(r.names().front() == "one");
  CHECK(r.names().back() == "n199");
  CHECK_THROWS_AS(r.add({"one", 11, ""}), InternalError);
  CHECK(r.find("one").value == 1);
}

TEST_CASE("lookups run while another thread adds") {
  Registry<int> r("test.concurrent", "number", {{"zero", 0, ""}});
  std::thread writer([&] {
    for (int i = 1; i <= 2000; ++i) r.add({"n" + std::to_string(i), i, ""});
  });
  int64_t sum = 0;
  for (int i = 0; i < 2000; ++i) sum += r.find("zero").value + int64_t(r.names().size() > 0);
  writer.join();
  CHECK(sum == 2000);
  CHECK(r.find("n2000").value == 2000);
}

TEST_CASE("the catalog holds published registries by id") {
  static const Registry<int> sizes("test.size", "size", {{"small", 1, ""}});
  CHECK(published_registry("test.size") == nullptr);
  publish_registry(sizes);
  publish_registry(sizes); // again: nothing changes
  CHECK(published_registry("test.size") == &sizes);
  size_t count = 0;
  for (const RegistryBase* r : published_registries()) count += r == &sizes;
  CHECK(count == 1);
  CHECK(published_registry("test.size")->names() == std::vector<std::string>{"small"});
  static const Registry<int> other("test.size", "size", {{"large", 2, ""}});
  CHECK_THROWS_AS(publish_registry(other), InternalError);
  CHECK(published_registry("test.size") == &sizes);
}
