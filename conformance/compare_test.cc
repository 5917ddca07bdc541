#include "conformance/compare.h"

#include <gtest/gtest.h>

namespace kvlab::conformance {

using resp::Reply;

namespace {

Reply Bulks(const std::vector<std::string>& v) {
  std::vector<Reply> e;
  for (const std::string& s : v) e.push_back(Reply::Bulk(s));
  return Reply::Array(std::move(e));
}

bool Same(const std::vector<std::string>& argv, const Reply& a, const Reply& b) {
  return CompareReplies(argv, a, b, CompareOptions()).empty();
}

TEST(Compare, ExactByTypeAndBytes) {
  EXPECT_TRUE(Same({"GET", "k"}, Reply::Bulk("v"), Reply::Bulk("v")));
  EXPECT_FALSE(Same({"GET", "k"}, Reply::Bulk("v"), Reply::Bulk("v ")));
  EXPECT_FALSE(Same({"GET", "k"}, Reply::Bulk("1"), Reply::Integer(1)));
  EXPECT_FALSE(Same({"SET", "k", "v"}, Reply::Ok(), Reply::Bulk("OK")));
  EXPECT_FALSE(Same({"HGET", "k", "f"}, Reply::Error("ERR x"), Reply::Error("ERR y")));
  // Float text is compared as printed.
  EXPECT_FALSE(Same({"ZSCORE", "z", "m"}, Reply::Bulk("1.5"), Reply::Bulk("1.50")));
  EXPECT_FALSE(Same({"HINCRBYFLOAT", "h", "f", "1"}, Reply::Bulk("0.3"),
                    Reply::Bulk("0.30000000000000004")));
}

TEST(Compare, ExplanationNamesBothRepliesAndCutsLongOnes) {
  const std::string why = CompareReplies({"GET", "k"}, Reply::Bulk(std::string(100000, 'a')),
                                         Reply::Nil(), CompareOptions());
  EXPECT_NE(why.find("kvlab replied (nil)"), std::string::npos);
  EXPECT_LT(why.size(), 1000u);
}

TEST(Compare, NilArrayEqualsNilBulk) {
  EXPECT_TRUE(Same({"ZRANDMEMBER", "z"}, Reply::NilArray(), Reply::Nil()));
  EXPECT_TRUE(Same({"MGET", "a"}, Bulks({}), Bulks({})));
  EXPECT_FALSE(Same({"MGET", "a"}, Reply::Array({Reply::Nil()}), Bulks({""})));
}

TEST(Compare, OrderIgnoredOnlyWhereRedisLeavesItUnspecified) {
  const Reply a = Bulks({"f1", "v1", "f2", "v2"});
  const Reply b = Bulks({"f2", "v2", "f1", "v1"});
  const Reply swapped = Bulks({"f1", "v2", "f2", "v1"});
  EXPECT_TRUE(Same({"HGETALL", "h"}, a, b));
  EXPECT_FALSE(Same({"HGETALL", "h"}, a, swapped));  // pairs stay pairs
  EXPECT_TRUE(Same({"hkeys", "h"}, Bulks({"a", "b"}), Bulks({"b", "a"})));
  EXPECT_TRUE(Same({"HVALS", "h"}, Bulks({"1", "2"}), Bulks({"2", "1"})));
  EXPECT_TRUE(Same({"KEYS", "*"}, Bulks({"a", "b"}), Bulks({"b", "a"})));
  EXPECT_FALSE(Same({"HKEYS", "h"}, Bulks({"a", "b"}), Bulks({"a", "a"})));
  EXPECT_TRUE(Same({"CONFIG", "GET", "*"}, a, b));
  // Ordered replies stay ordered.
  EXPECT_FALSE(Same({"ZRANGE", "z", "0", "-1"}, Bulks({"a", "b"}), Bulks({"b", "a"})));
  EXPECT_FALSE(Same({"HMGET", "h", "a", "b"}, Bulks({"1", "2"}), Bulks({"2", "1"})));
  EXPECT_FALSE(Same({"MGET", "a", "b"}, Bulks({"1", "2"}), Bulks({"2", "1"})));
  EXPECT_FALSE(Same({"CONFIG", "SET", "x"}, a, b));
}

TEST(Compare, TtlWithinTheDeclaredTolerance) {
  CompareOptions o;
  o.ttl_tolerance_ms = 250;
  o.ttl_tolerance_s = 1;
  auto same = [&](const char* cmd, int64_t a, int64_t b) {
    return CompareReplies({cmd, "k"}, Reply::Integer(a), Reply::Integer(b), o).empty();
  };
  EXPECT_TRUE(same("PTTL", 100000, 99750));
  EXPECT_FALSE(same("PTTL", 100000, 99749));
  EXPECT_TRUE(same("pexpiretime", 1700000000000, 1700000000250));
  EXPECT_TRUE(same("TTL", 100, 99));
  EXPECT_FALSE(same("TTL", 100, 98));
  EXPECT_TRUE(same("EXPIRETIME", 1700000000, 1700000001));
  // -1 (no expiry) and -2 (no key) are exact.
  EXPECT_FALSE(same("TTL", -1, -2));
  EXPECT_FALSE(same("PTTL", -2, 0));
  EXPECT_FALSE(same("PTTL", 1, -1));
  // Other integer replies get no tolerance.
  EXPECT_FALSE(same("HLEN", 5, 6));
  EXPECT_FALSE(same("EXPIRE", 0, 1));
}

TEST(Compare, TimeByShapeWithinTheTolerance) {
  auto same = [](const Reply& a, const Reply& b) { return Same({"TIME"}, a, b); };
  EXPECT_TRUE(same(Bulks({"1700000000", "5"}), Bulks({"1700000001", "999999"})));
  EXPECT_FALSE(same(Bulks({"1700000000", "5"}), Bulks({"1700000003", "5"})));
  EXPECT_FALSE(same(Bulks({"1700000000", "5"}), Bulks({"1700000000", "1000000"})));
  EXPECT_FALSE(same(Bulks({"1700000000", "5"}), Bulks({"1700000000"})));
  EXPECT_FALSE(same(Bulks({"1700000000", "5"}), Reply::Error("ERR")));
}

TEST(Compare, ScanFamilyAndDescribeShort) {
  EXPECT_TRUE(IsScanCommand("SCAN"));
  EXPECT_TRUE(IsScanCommand("hscan"));
  EXPECT_TRUE(IsScanCommand("ZScan"));
  EXPECT_FALSE(IsScanCommand("SCANX"));
  EXPECT_EQ(DescribeShort(Reply::Bulk("abc")), "\"abc\"");
  EXPECT_EQ(DescribeShort(Reply::Bulk(std::string(10, 'x')), 5), "\"xxxx...(12 chars)");
  EXPECT_EQ(DescribeShort(Reply::Error(std::string("ERR a\0b\r", 8))), "(error) ERR a\\x00b\\x0d");
}

}  // namespace
}  // namespace kvlab::conformance
