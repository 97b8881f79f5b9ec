using System;
using System.Collections.Generic;

namespace Demo
{
    /// <summary>Doc with a brace {</summary>
    [Serializable]
    public class Widget
    {
        private const string V = @"verbatim ""quoted"" } path\";
        private string I => $"interp {Name} {{literal}} {(Count > 0 ? "}" : "{")}";
        private const char C = '}';

        public string Name { get; set; }
        public int Count { get; private set; }

        #region Methods
        [Obsolete("use Run2")]
        public void Run()
        {
            Console.WriteLine("{0}", Name);
        }
        #endregion

        public string Raw() => """
            raw " } string
            """;
    }
}
