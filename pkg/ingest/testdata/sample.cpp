#include <iostream>
#include <string>
using namespace std;

// A raw string with a custom delimiter holding )" and braces.
const char *raw = R"delim(a raw { string )" with } inside)delim";
const char *raw2 = u8R"(plain raw {)";
constexpr long big = 1'000'000;
const char q = '\'';

namespace demo {

template <typename T>
class Box final : public Base<T> {
public:
    explicit Box(T v) : v_(v) {}
    T get() const { return v_; }  // }

private:
    T v_;
};

}  // namespace demo

int main() {
    std::cout << raw << "}" << std::endl;
    return 0;
}
