// ScopeStack (frontend/lib/ScopeStack.h): the resolver's scopes, which must find what a
// stack of hash maps found: the innermost binding, a redeclaration replacing the
// earlier one in its scope, the outermost scope reachable under inner ones.
#include "ScopeStack.h"

#include <gtest/gtest.h>

#include <algorithm>

using ph::check::ScopeStack;

TEST(ScopeStackTest, InnerScopesShadowAndCloseAgain) {
  ScopeStack s;
  s.open();
  s.declare("x", 1);
  s.open();
  EXPECT_EQ(*s.lookup("x"), 1u);
  EXPECT_EQ(s.lookupInCurrent("x"), nullptr);
  s.declare("x", 2);
  EXPECT_EQ(*s.lookup("x"), 2u);
  EXPECT_EQ(*s.lookupInCurrent("x"), 2u);
  s.close();
  EXPECT_EQ(*s.lookup("x"), 1u);
  EXPECT_EQ(s.lookup("y"), nullptr);
  EXPECT_EQ(s.depth(), 1u);
}

TEST(ScopeStackTest, ARedeclarationReplacesTheBindingInItsScope) {
  ScopeStack s;
  s.open();
  s.declare("a", 1);
  s.declare("b", 2);
  s.declare("a", 3);
  EXPECT_EQ(*s.lookup("a"), 3u);
  EXPECT_EQ(s.names(), (std::vector<std::string>{"a", "b"}));
}

TEST(ScopeStackTest, TheOutermostScopeTakesNamesUnderInnerOnes) {
  ScopeStack s;
  s.open();
  s.declare("N", 1);
  s.open();
  s.declare("i", 2);
  s.declareOutermost("M", 3);
  s.declareOutermost("i", 4); // the inner `i` still shadows it
  EXPECT_EQ(*s.lookup("M"), 3u);
  EXPECT_EQ(*s.lookup("i"), 2u);
  EXPECT_EQ(s.lookupInCurrent("M"), nullptr);
  s.close();
  EXPECT_EQ(*s.lookup("M"), 3u);
  EXPECT_EQ(*s.lookup("i"), 4u);
  EXPECT_EQ(*s.lookup("N"), 1u);
}

TEST(ScopeStackTest, NamesListsEveryScopeOuterFirstAndClearForgetsAll) {
  ScopeStack s;
  s.open();
  s.declare("x", 1);
  s.open();
  s.declare("x", 2);
  s.declare("y", 3);
  EXPECT_EQ(s.names(), (std::vector<std::string>{"x", "x", "y"}));
  s.clear();
  EXPECT_EQ(s.depth(), 0u);
  s.open();
  EXPECT_EQ(s.lookup("x"), nullptr);
  EXPECT_TRUE(s.names().empty());
}
