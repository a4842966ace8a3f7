"""mnemex.tools"""
